/* The per-rank timeline of the HTML report, as inline SVG: one row per
 * rank on a band per host, a bar up to the init phase the rank reached,
 * and the marks the findings put on it (the catalog's "marks": stuck,
 * behind, timeout) with the rank that failed first. A large job folds
 * runs of hosts whose ranks all look the same into one band, so the ranks
 * that differ stand out and the picture stays a screen high. */
#include "html.h"

#include <stdlib.h>
#include <string.h>

#include "hostlist.h"

/* Up to this many ranks, every rank gets its row. */
#define TL_ALL_RANKS 64
/* A host whose ranks differ shows each of them up to this many; a bigger
 * one folds its runs of alike ranks. */
#define TL_HOST_RANKS 16
#define TL_MAX_ROWS 120

#define TL_W 1040
#define TL_LABEL 260     /* host and rank labels */
#define TL_RIGHT 200     /* the marks' words */
#define TL_HEAD 34
#define TL_ROW 16
#define TL_FOLD 22
#define TL_PHASES (PH_RUNNING - PH_NONE) /* bootstrap .. running */

static const char *const phase_label[] = { "", "bootstrap", "init start", "topology", "connect", "connected",
					   "complete", "running" };

enum { TL_FIRST = 8, TL_FAILED = 16 }; /* beside MARK_TIMEOUT, MARK_BEHIND, MARK_STUCK */

typedef struct tlrank {
	int proc, rank, host;
	enum phase phase;
	unsigned marks;
	int why;             /* a finding that marks it, -1 */
} tlrank;

typedef struct tlitem {
	size_t first, n;     /* ranks r[first .. first+n) */
	int hfirst, hlast;   /* the host groups it covers */
	bool fold;
} tlitem;

typedef struct tlhost {
	size_t first, n;
	bool uniform;        /* all its ranks have one phase and one set of marks */
} tlhost;

typedef struct sortkey {
	int hostrank, host, rank, proc;
} sortkey;

static int cmp_key(const void *a, const void *b)
{
	const sortkey *x = a, *y = b;
	if (x->hostrank != y->hostrank)
		return x->hostrank < y->hostrank ? -1 : 1;
	if (x->host != y->host)
		return x->host < y->host ? -1 : 1;
	if (x->rank != y->rank)
		return x->rank < y->rank ? -1 : 1;
	return x->proc < y->proc ? -1 : x->proc > y->proc;
}

/* The processes that get a row, as the viewer picks them: NCCL processes,
 * and ranked launcher streams whose rank no NCCL process claims; hosts in
 * the order of their lowest rank. */
static size_t pick(const model *m, tlrank **out)
{
	intset claimed = { 0 };
	for (size_t i = 0; i < m->nprocs; i++)
		if (m->procs[i].pid >= 0 && model_proc_rank(m, (int)i) >= 0)
			intset_add(&claimed, model_proc_rank(m, (int)i));
	sortkey *k = xcalloc(m->nprocs ? m->nprocs : 1, sizeof *k);
	size_t n = 0;
	for (size_t i = 0; i < m->nprocs; i++) {
		int r = model_proc_rank(m, (int)i);
		if (m->procs[i].pid < 0 && (r < 0 || intset_has(&claimed, r)))
			continue;
		k[n++] = (sortkey){ 0, m->procs[i].host, r < 0 ? 1 << 30 : r, (int)i };
	}
	qsort(k, n, sizeof *k, cmp_key);
	for (size_t i = 0, first = 0; i < n; i++) {
		if (k[i].host != k[first].host)
			first = i;
		k[i].hostrank = k[first].rank;
	}
	qsort(k, n, sizeof *k, cmp_key);
	tlrank *v = xcalloc(n ? n : 1, sizeof *v);
	for (size_t i = 0; i < n; i++) {
		const proc *p = &m->procs[k[i].proc];
		v[i] = (tlrank){ .proc = k[i].proc, .rank = model_proc_rank(m, k[i].proc), .host = p->host,
				 .phase = p->phase, .why = -1 };
	}
	free(k);
	intset_free(&claimed);
	*out = v;
	return n;
}

static int cmp_int2(const void *a, const void *b)
{
	const int *x = a, *y = b;
	return x[0] != y[0] ? (x[0] < y[0] ? -1 : 1) : (x[1] > y[1]) - (x[1] < y[1]);
}

static void mark_row(tlrank *r, unsigned marks, int why)
{
	r->marks |= marks;
	if (marks & (MARK_TIMEOUT | MARK_BEHIND | MARK_STUCK) && r->why < 0)
		r->why = why;
}

/* What the findings say of each rank: the catalog's marks of every
 * finding that names it, "failed" where an error finding names a rank
 * that warned or aborted itself, and the first to fail. */
static void mark(const model *m, tlrank *v, size_t n)
{
	int *row_of = xmalloc((m->nprocs ? m->nprocs : 1) * sizeof *row_of);
	for (size_t i = 0; i < m->nprocs; i++)
		row_of[i] = -1;
	int (*by_rank)[2] = xcalloc(n ? n : 1, sizeof *by_rank);
	size_t nb = 0;
	for (size_t i = 0; i < n; i++) {
		row_of[v[i].proc] = (int)i;
		if (v[i].rank >= 0) {
			by_rank[nb][0] = v[i].rank;
			by_rank[nb++][1] = (int)i;
		}
	}
	qsort(by_rank, nb, sizeof *by_rank, cmp_int2);
	for (size_t k = 0; k < m->fs.n; k++) {
		const finding *f = &m->fs.v[k];
		const catentry *ce = m->cat ? catalog_find(m->cat, f->id) : NULL;
		unsigned marks = ce && !f->demoted ? ce->marks : 0;
		bool err = f->severity == SEV_ERROR;
		if (!marks && !err)
			continue;
		for (size_t j = 0; j < f->procs.n; j++) {
			int pi = f->procs.v[j];
			int ri = pi >= 0 && (size_t)pi < m->nprocs ? row_of[pi] : -1;
			if (ri < 0)
				continue;
			const proc *p = &m->procs[pi];
			mark_row(&v[ri], marks | (err && (p->warned || p->aborted) ? TL_FAILED : 0), (int)k);
		}
		/* ranks the evidence names itself (a watchdog's "[Rank 3]") */
		for (size_t j = 0; marks && j < f->ranks.n; j++) {
			int key[2] = { f->ranks.v[j], -1 };
			size_t lo = 0, hi = nb;
			while (lo < hi) {
				size_t mid = (lo + hi) / 2;
				if (cmp_int2(by_rank[mid], key) < 0)
					lo = mid + 1;
				else
					hi = mid;
			}
			for (; lo < nb && by_rank[lo][0] == key[0]; lo++)
				mark_row(&v[by_rank[lo][1]], marks, (int)k);
		}
	}
	int ff = model_first_failure(m);
	if (ff >= 0 && (size_t)ff < m->nprocs && row_of[ff] >= 0)
		v[row_of[ff]].marks |= TL_FIRST;
	free(by_rank);
	free(row_of);
}

/* Ranks that may share a row: the same phase and marks; when even that
 * leaves too many rows (loose), the same marks, their phases drawn as a span. */
static bool alike(const tlrank *a, const tlrank *b, bool loose)
{
	return (loose || a->phase == b->phase) && a->marks == b->marks;
}

/* The rows to draw: every rank of a small job; in a large one, runs of
 * alike hosts as one band, and the ranks of the hosts that differ. */
static size_t layout(const tlrank *v, size_t n, bool loose, tlitem **out)
{
	tlhost *h = xcalloc(n ? n : 1, sizeof *h);
	size_t nh = 0;
	for (size_t i = 0; i < n; i++) {
		if (!nh || v[h[nh - 1].first].host != v[i].host)
			h[nh++] = (tlhost){ .first = i, .uniform = true };
		tlhost *t = &h[nh - 1];
		t->n++;
		if (!alike(&v[t->first], &v[i], loose))
			t->uniform = false;
	}
	tlitem *it = xcalloc(n ? n : 1, sizeof *it);
	size_t ni = 0;
	for (size_t i = 0; i < nh; i++) {
		if (n <= TL_ALL_RANKS || (!h[i].uniform && h[i].n <= TL_HOST_RANKS)) {
			it[ni++] = (tlitem){ h[i].first, h[i].n, (int)i, (int)i, false };
		} else if (h[i].uniform) {
			size_t j = i, cnt = h[i].n;
			while (j + 1 < nh && h[j + 1].uniform && alike(&v[h[j + 1].first], &v[h[i].first], loose))
				cnt += h[++j].n;
			it[ni++] = (tlitem){ h[i].first, cnt, (int)i, (int)j, cnt > 1 };
			i = j;
		} else {
			/* a big host whose ranks differ: runs of alike ranks */
			for (size_t a = h[i].first, e = h[i].first + h[i].n; a < e;) {
				size_t b = a + 1;
				while (b < e && alike(&v[a], &v[b], loose))
					b++;
				it[ni++] = (tlitem){ a, b - a, (int)i, (int)i, b - a > 1 };
				a = b;
			}
		}
	}
	free(h);
	*out = it;
	return ni;
}

static size_t rows_of(const tlitem *it, size_t ni)
{
	size_t rows = 0;
	for (size_t i = 0; i < ni; i++)
		rows += it[i].fold ? 1 : it[i].n;
	return rows;
}

#define TL_CW ((TL_W - TL_LABEL - TL_RIGHT) / TL_PHASES)

static const char *bar_class(const tlrank *r)
{
	/* the most telling mark first: a rank behind the others that all timed
	 * out is the one to look at */
	return r->marks & MARK_STUCK     ? "bar stuck"
	       : r->marks & MARK_BEHIND  ? "bar behind"
	       : r->marks & MARK_TIMEOUT ? "bar timeout"
	       : r->phase >= PH_COMPLETE ? "bar done"
					 : "bar";
}

/* "stuck, first failure": the words for a rank's marks, raw. */
static void mark_words(strbuf *b, unsigned marks)
{
	static const struct {
		unsigned bit;
		const char *word;
	} w[] = { { MARK_STUCK, "stuck" }, { MARK_BEHIND, "behind" }, { MARK_TIMEOUT, "timeout" },
		  { TL_FAILED, "failed" }, { TL_FIRST, "first failure" } };
	size_t at = b->n;
	for (size_t i = 0; i < sizeof w / sizeof w[0]; i++)
		if (marks & w[i].bit) {
			sb_adds(b, b->n > at ? ", " : "");
			sb_adds(b, w[i].word);
		}
}

static void text_at(strbuf *b, int x, int y, const char *cls, const char *anchor, slice s, size_t max)
{
	sb_printf(b, "<text x=\"%d\" y=\"%d\"", x, y);
	if (cls)
		sb_printf(b, " class=\"%s\"", cls);
	if (anchor)
		sb_printf(b, " text-anchor=\"%s\"", anchor);
	sb_adds(b, ">");
	/* no <span> in SVG: the HTML parser would leave the <svg> for it */
	html_escape_cut(b, s, max, false);
	sb_adds(b, "</text>");
}

static void bar(strbuf *b, enum phase ph, int y, int hgt, const char *cls)
{
	if (ph <= PH_NONE)
		return;
	sb_printf(b, "<rect class=\"%s\" x=\"%d\" y=\"%d\" width=\"%d\" height=\"%d\" rx=\"2\"/>", cls, TL_LABEL + 2, y,
		  (int)ph * TL_CW - 6, hgt);
}

static void marks_drawn(strbuf *b, const tlrank *r, int y, int hgt)
{
	int x = TL_LABEL + 2 + (r->phase > PH_NONE ? (int)r->phase * TL_CW - 6 : 0), cy = y + hgt / 2;
	if (r->marks & (MARK_STUCK | MARK_TIMEOUT | MARK_BEHIND))
		sb_printf(b, "<circle class=\"mk%s\" cx=\"%d\" cy=\"%d\" r=\"4.5\"/>",
			  r->marks & MARK_STUCK ? "" : r->marks & MARK_BEHIND ? " behind" : " timeout", x, cy);
	if (r->marks & TL_FIRST)
		sb_printf(b, "<path class=\"ff\" d=\"M%d %dl6 6-6 6-6-6z\"/>", x + 12, cy - 6);
	strbuf w = { 0 };
	mark_words(&w, r->marks);
	if (w.n)
		text_at(b, TL_W - TL_RIGHT + 12, cy + 4, "mkl", NULL, (slice){ w.p, w.n }, 30);
	sb_free(&w);
}

/* The tooltip of a rank: who it is, how far it got, what marks it. */
static void rank_title(strbuf *b, const model *m, const tlrank *r)
{
	strbuf t = { 0 };
	const proc *p = &m->procs[r->proc];
	if (r->rank >= 0)
		sb_printf(&t, "rank %d", r->rank);
	else
		sb_adds(&t, "a process of unknown rank");
	if (r->host >= 0)
		sb_printf(&t, " on %s", intern_str(&m->str, r->host));
	if (p->pid >= 0)
		sb_printf(&t, ", pid %ld", p->pid);
	if (p->dev >= 0)
		sb_printf(&t, ", GPU %d", p->dev);
	sb_printf(&t, ": reached %s", phase_name(r->phase));
	if (r->marks) {
		sb_adds(&t, "; ");
		mark_words(&t, r->marks);
	}
	if (r->why >= 0)
		sb_printf(&t, " (%s)", m->fs.v[r->why].id);
	sb_adds(b, "<title>");
	html_escape(b, (slice){ t.p, t.n }, false);
	sb_adds(b, "</title>");
	sb_free(&t);
}

static void draw_rank(strbuf *b, const model *m, const tlrank *r, int y, bool host_label)
{
	const proc *p = &m->procs[r->proc];
	sb_adds(b, "<g>");
	rank_title(b, m, r);
	if (host_label) {
		const char *h = r->host >= 0 ? intern_str(&m->str, r->host) : "(no host)";
		text_at(b, 8, y + 12, "hd", NULL, slice_from(h), 24);
	}
	strbuf t = { 0 };
	if (r->rank >= 0)
		sb_printf(&t, "r%d", r->rank);
	else
		sb_adds(&t, "r?");
	if (p->dev >= 0)
		sb_printf(&t, " gpu%d", p->dev);
	text_at(b, TL_LABEL - 8, y + 12, "muted", "end", (slice){ t.p, t.n }, 18);
	sb_free(&t);
	bar(b, r->phase, y + 3, TL_ROW - 6, bar_class(r));
	if (r->phase <= PH_NONE)
		text_at(b, TL_LABEL + 4, y + 12, "muted", NULL, SLICE_LIT("no NCCL init line"), 40);
	marks_drawn(b, r, y, TL_ROW);
	sb_adds(b, "</g>\n");
}

static void draw_fold(strbuf *b, const model *m, const tlrank *v, const tlitem *it, int y)
{
	intset hosts = { 0 }, ranks = { 0 };
	enum phase lo = PH_RUNNING, hi = PH_NONE;
	for (size_t i = it->first; i < it->first + it->n; i++) {
		intset_add(&hosts, v[i].host);
		if (v[i].rank >= 0)
			intset_add(&ranks, v[i].rank);
		lo = v[i].phase < lo ? v[i].phase : lo;
		hi = v[i].phase > hi ? v[i].phase : hi;
	}
	const tlrank *r = &v[it->first];
	strbuf hl = { 0 }, rl = { 0 }, t = { 0 };
	hostlist_format(&hl, m, hosts.v, hosts.n, 3);
	if (ranks.n)
		hostlist_ranges(&rl, ranks.v, ranks.n, 16);
	sb_printf(&t, "%s: ranks %s (%zu) on %zu host%s, ", hl.p, rl.p ? rl.p : "unknown", it->n, hosts.n,
		  hosts.n == 1 ? "" : "s");
	if (lo == hi)
		sb_printf(&t, "all reached %s", phase_name(lo));
	else
		sb_printf(&t, "reached %s to %s", phase_name(lo), phase_name(hi));
	if (r->marks) {
		sb_adds(&t, "; all ");
		mark_words(&t, r->marks);
	}
	sb_adds(b, "<g><title>");
	html_escape(b, (slice){ t.p, t.n }, false);
	sb_adds(b, "</title>");
	text_at(b, 8, y + 15, "hd", NULL, (slice){ hl.p, hl.n }, 20);
	sb_clear(&t);
	sb_printf(&t, "%s (%zu)", rl.p ? rl.p : "?", it->n);
	text_at(b, TL_LABEL - 8, y + 15, "muted", "end", (slice){ t.p, t.n }, 16);
	if (hi > lo)
		bar(b, hi, y + 4, TL_FOLD - 8, "bar span");
	tlrank show = *r;
	show.phase = lo;
	bar(b, lo, y + 4, TL_FOLD - 8, bar_class(&show));
	marks_drawn(b, &show, y, TL_FOLD);
	sb_adds(b, "</g>\n");
	sb_free(&hl);
	sb_free(&rl);
	sb_free(&t);
	intset_free(&hosts);
	intset_free(&ranks);
}

static void legend(strbuf *b, int y)
{
	static const struct {
		const char *cls, *word;
	} k[] = { { "bar", "reached" }, { "bar done", "init complete" }, { "bar stuck", "stuck" },
		  { "bar behind", "behind" }, { "bar timeout", "timed out" } };
	int x = 8;
	for (size_t i = 0; i < sizeof k / sizeof k[0]; i++) {
		sb_printf(b, "<rect class=\"%s\" x=\"%d\" y=\"%d\" width=\"14\" height=\"10\" rx=\"2\"/>", k[i].cls, x, y);
		sb_printf(b, "<text x=\"%d\" y=\"%d\">%s</text>", x + 20, y + 9, k[i].word);
		x += 24 + 8 * (int)strlen(k[i].word) + 16;
	}
	sb_printf(b, "<path class=\"ff\" d=\"M%d %dl6 6-6 6-6-6z\"/><text x=\"%d\" y=\"%d\">first failure</text>\n",
		  x + 6, y - 1, x + 18, y + 9);
}

void html_timeline(strbuf *b, const model *m)
{
	tlrank *v;
	size_t n = pick(m, &v);
	if (!n) {
		sb_adds(b, "<p>No rank seen in these logs.</p>\n");
		free(v);
		return;
	}
	mark(m, v, n);
	tlitem *it;
	size_t ni = layout(v, n, false, &it);
	if (rows_of(it, ni) > TL_MAX_ROWS) {
		free(it);
		ni = layout(v, n, true, &it);
	}
	/* the height first: the rows drawn, then what was left out */
	int hgt = TL_HEAD;
	size_t rows = 0, drawn = 0, items = 0;
	for (; items < ni && rows < TL_MAX_ROWS; items++) {
		size_t take = it[items].fold ? 1 : it[items].n;
		if (rows + take > TL_MAX_ROWS && rows)
			break;
		rows += take;
		drawn += it[items].n;
		hgt += it[items].fold ? TL_FOLD : (int)take * TL_ROW;
	}
	bool cut = drawn < n;
	int body_end = hgt;
	hgt += (cut ? 22 : 0) + 34;
	sb_printf(b, "<svg class=\"timeline\" role=\"img\" aria-labelledby=\"tl-title\" viewBox=\"0 0 %d %d\" width=\"%d\" "
		     "height=\"%d\">\n<title id=\"tl-title\">How far each rank got through NCCL init, by host: %zu ranks",
		  TL_W, hgt, TL_W, hgt, n);
	size_t marked = 0;
	for (size_t i = 0; i < n; i++)
		marked += (v[i].marks & (MARK_STUCK | MARK_BEHIND | MARK_TIMEOUT)) != 0;
	if (marked)
		sb_printf(b, ", %zu marked stuck, behind or timed out", marked);
	sb_adds(b, "</title>\n");
	/* the header and the phase columns */
	sb_adds(b, "<text x=\"8\" y=\"20\" class=\"muted\">host</text>");
	sb_printf(b, "<text x=\"%d\" y=\"20\" class=\"muted\" text-anchor=\"end\">rank</text>", TL_LABEL - 8);
	for (int p = 1; p <= TL_PHASES; p++)
		sb_printf(b, "<text x=\"%d\" y=\"20\" class=\"muted\" text-anchor=\"middle\">%s</text>",
			  TL_LABEL + (p - 1) * TL_CW + TL_CW / 2, phase_label[p]);
	sb_addc(b, '\n');
	int y = TL_HEAD;
	/* a band per host, or per run of folded hosts, in alternate shades */
	for (size_t i = 0, shade = 0; i < items; i++) {
		int h = it[i].fold ? TL_FOLD : (int)it[i].n * TL_ROW;
		shade += i && it[i].hfirst != it[i - 1].hlast;
		sb_printf(b, "<rect class=\"b%zu\" x=\"0\" y=\"%d\" width=\"%d\" height=\"%d\"/>\n", shade & 1, y,
			  TL_W, h);
		y += h;
	}
	for (int p = 0; p <= TL_PHASES; p++)
		sb_printf(b, "<line class=\"grid\" x1=\"%d\" y1=\"%d\" x2=\"%d\" y2=\"%d\"/>", TL_LABEL + p * TL_CW,
			  TL_HEAD - 6, TL_LABEL + p * TL_CW, body_end);
	sb_addc(b, '\n');
	y = TL_HEAD;
	for (size_t i = 0; i < items; i++) {
		if (it[i].fold) {
			draw_fold(b, m, v, &it[i], y);
			y += TL_FOLD;
			continue;
		}
		for (size_t k = 0; k < it[i].n; k++, y += TL_ROW)
			draw_rank(b, m, &v[it[i].first + k], y,
				  k == 0 && (i == 0 || it[i - 1].hlast != it[i].hfirst));
	}
	if (cut) {
		intset hosts = { 0 };
		for (size_t i = drawn; i < n; i++)
			intset_add(&hosts, v[i].host);
		sb_printf(b, "<text x=\"8\" y=\"%d\" class=\"muted\">... %zu more ranks on %zu host%s not drawn</text>\n",
			  y + 15, n - drawn, hosts.n, hosts.n == 1 ? "" : "s");
		y += 22;
		intset_free(&hosts);
	}
	legend(b, y + 12);
	sb_adds(b, "</svg>\n");
	free(it);
	free(v);
}
