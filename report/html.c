/* One self-contained HTML page: the verdict, the per-rank timeline, the
 * findings with their evidence and their consequences folded under them,
 * and the job summary. No script, no fetch: the Content-Security-Policy
 * allows the one inline style sheet by its hash and nothing else, so even
 * markup that slipped past the escaper could neither run nor load. */
#include "html.h"

#include <stdlib.h>
#include <string.h>

#include "../util/escape.h"
#include "../util/sha256.h"

/* Lists are cut here, with a count of what was left out. */
#define HTML_MAX_ROOTS 200
#define HTML_MAX_CONSEQ 64
#define HTML_MAX_HOSTROWS 32
#define HTML_MAX_ENV 64
#define HTML_MAX_LINKS 16
#define HTML_MAX_INPUTS 8

static const char css[] =
	":root{--fg:#1b1f24;--muted:#5b6470;--bg:#fff;--panel:#f6f8fa;--line:#d8dee4;--err:#c62828;"
	"--warn:#a15c00;--info:#0b6bcb;--ok:#2e7d32;--behind:#d98200;--timeout:#7b3fb8;--bar:#8da2bf;--done:#5f9f73}\n"
	"*{box-sizing:border-box}\n"
	"body{margin:0;font:14px/1.45 system-ui,-apple-system,\"Segoe UI\",Roboto,\"Noto Sans\",\"DejaVu Sans\",sans-serif;"
	"color:var(--fg);background:var(--bg)}\n"
	"main{max-width:1100px;margin:0 auto;padding:20px 24px 32px}\n"
	"h1{font-size:20px;margin:0}h2{font-size:16px;margin:26px 0 10px;padding-bottom:4px;border-bottom:1px solid var(--line)}\n"
	"h3{font-size:14px;margin:0;font-weight:600}h4{font-size:13px;margin:14px 0 4px;color:var(--muted)}\n"
	"code,pre,.fid,.mono,.at{font-family:ui-monospace,SFMono-Regular,Menlo,Consolas,\"DejaVu Sans Mono\",monospace;font-size:12.5px}\n"
	".sub{color:var(--muted);margin:2px 0 14px}\n"
	".n-error{color:var(--err);font-weight:600}.n-warning{color:var(--warn);font-weight:600}.n-info{color:var(--info)}\n"
	".verdict{border-left:6px solid var(--err);background:#fdf1f1;padding:10px 16px;border-radius:6px}\n"
	".verdict.ok{border-color:var(--ok);background:#eef7ef}.verdict.unproven{border-color:var(--warn);background:#fdf6ea}\n"
	".verdict p{margin:4px 0}.verdict .what{font-size:16px;font-weight:600}\n"
	".label{font-weight:700;text-transform:uppercase;font-size:11px;letter-spacing:.05em;color:var(--muted);margin-right:6px}\n"
	".finding{border:1px solid var(--line);border-left:4px solid var(--info);border-radius:6px;padding:8px 14px;margin:0 0 12px}\n"
	".finding.sev-error{border-left-color:var(--err)}.finding.sev-warning{border-left-color:var(--warn)}\n"
	".finding p{margin:4px 0}.finding .title{color:var(--muted)}\n"
	".sev{display:inline-block;font-size:11px;font-weight:700;text-transform:uppercase;padding:0 6px;border-radius:3px;"
	"color:#fff;background:var(--info)}\n"
	".sev-error>.sev,.sev-error>h3>.sev{background:var(--err)}.sev-warning>.sev,.sev-warning>h3>.sev{background:var(--warn)}\n"
	".fid{font-weight:600}\n"
	".conf{font-size:11px;border:1px solid var(--line);border-radius:3px;padding:0 5px;color:var(--muted);margin-left:4px}\n"
	".conf-suspected{border-color:var(--warn);color:var(--warn)}\n"
	".where,.at,.note{color:var(--muted)}\n"
	"pre.ev{background:var(--panel);border:1px solid var(--line);border-radius:4px;padding:6px 8px;margin:6px 0;"
	"white-space:pre-wrap;overflow-wrap:anywhere}\n"
	".esc{color:#fff;background:#8a4b00;border-radius:2px;padding:0 1px}\n"
	".help .label{color:var(--ok)}\n"
	".conseq{margin-top:8px;border-top:1px dashed var(--line);padding-top:6px}\n"
	".conseq>details{margin:2px 0}.conseq summary{cursor:pointer}.conseq summary .sev{font-size:10px}\n"
	".conseq details>.finding{margin:6px 0 8px 18px}\n"
	".d2{margin-left:18px}.d3{margin-left:36px}.d4{margin-left:54px}\n"
	"table{border-collapse:collapse;margin:4px 0 10px}\n"
	"th,td{text-align:left;padding:3px 14px 3px 0;border-bottom:1px solid var(--line);vertical-align:top}\n"
	"th{color:var(--muted);font-weight:600;white-space:nowrap}\n"
	"td.hostname{max-width:360px;overflow:hidden;text-overflow:ellipsis;white-space:nowrap}\n"
	".more{color:var(--muted);font-style:italic}\n"
	"svg.timeline{display:block;max-width:100%;height:auto;font:11px ui-monospace,Menlo,Consolas,\"DejaVu Sans Mono\",monospace}\n"
	"svg .b0{fill:#f6f8fa}svg .b1{fill:#e9eef5}svg .grid{stroke:#d0d7de;stroke-width:1}\n"
	"svg text{fill:var(--fg)}svg .muted{fill:var(--muted)}svg .hd{font-weight:700}\n"
	"svg .bar{fill:var(--bar)}svg .bar.done{fill:var(--done)}svg .bar.stuck{fill:var(--err)}"
	"svg .bar.behind{fill:var(--behind)}svg .bar.timeout{fill:var(--timeout)}svg .bar.span{opacity:.45}\n"
	"svg .mk{fill:var(--err)}svg .mk.behind{fill:var(--behind)}svg .mk.timeout{fill:var(--timeout)}\n"
	"svg .ff{fill:none;stroke:var(--fg);stroke-width:1.5}svg text.mkl{fill:var(--err);font-weight:700}\n"
	"footer{color:var(--muted);font-size:12px;margin-top:28px}\n";

/* Characters that render as nothing or reorder the text around them,
 * shown as their code point so that a log line reads as it was written:
 * C1 controls, Unicode's default-ignorable code points (bidi marks,
 * embeddings, overrides and isolates, zero-width spaces and joiners, fillers;
 * not the variation selectors that emoji need), line and paragraph
 * separators, interlinear annotations and noncharacters. */
static bool invisible(unsigned cp)
{
	static const unsigned r[][2] = {
		{ 0x80, 0x9f },       { 0xad, 0xad },       { 0x34f, 0x34f },     { 0x61c, 0x61c },
		{ 0x115f, 0x1160 },   { 0x17b4, 0x17b5 },   { 0x180b, 0x180f },   { 0x200b, 0x200f },
		{ 0x2028, 0x202e },   { 0x2060, 0x206f },   { 0x3164, 0x3164 },   { 0xfdd0, 0xfdef },
		{ 0xfeff, 0xfeff },   { 0xffa0, 0xffa0 },   { 0xfff0, 0xfffb },   { 0x1bca0, 0x1bca3 },
		{ 0x1d173, 0x1d17a }, { 0xe0000, 0xe007f },
	};
	for (size_t i = 0; i < sizeof r / sizeof r[0]; i++)
		if (cp >= r[i][0] && cp <= r[i][1])
			return true;
	return (cp & 0xfffe) == 0xfffe; /* U+FFFE and U+FFFF of every plane */
}

static unsigned utf8_decode(const unsigned char *p, size_t len)
{
	if (len == 1)
		return p[0];
	unsigned cp = p[0] & (0x7f >> len);
	for (size_t i = 1; i < len; i++)
		cp = cp << 6 | (p[i] & 0x3f);
	return cp;
}

static void esc_open(strbuf *b, bool text)
{
	if (text)
		sb_adds(b, "<span class=\"esc\">");
}

static void esc_close(strbuf *b, bool text)
{
	if (text)
		sb_adds(b, "</span>");
}

void html_escape(strbuf *b, slice s, bool text)
{
	const unsigned char *p = (const unsigned char *)s.p;
	for (size_t i = 0; i < s.n;) {
		unsigned char c = p[i];
		const char *ent = c == '&' ? "&amp;" : c == '<' ? "&lt;" : c == '>' ? "&gt;" : c == '"' ? "&quot;"
				: c == '\'' ? "&#39;" : NULL;
		if (ent) {
			sb_adds(b, ent);
			i++;
			continue;
		}
		size_t len = utf8_seqlen(p + i, s.n - i);
		if (!len || (len == 1 && ((c < 0x20 && c != '\t') || c == 0x7f))) {
			esc_open(b, text);
			sb_printf(b, "\\x%02x", c);
			esc_close(b, text);
			i++;
			continue;
		}
		unsigned cp = utf8_decode(p + i, len);
		if (invisible(cp)) {
			esc_open(b, text);
			sb_printf(b, "\\u{%x}", cp);
			esc_close(b, text);
		} else {
			sb_add(b, s.p + i, len);
		}
		i += len;
	}
}

void html_escape_cut(strbuf *b, slice s, size_t max, bool text)
{
	const unsigned char *p = (const unsigned char *)s.p;
	size_t at = 0, chars = 0;
	while (at < s.n && chars < max) {
		size_t len = utf8_seqlen(p + at, s.n - at);
		at += len ? len : 1;
		chars++;
	}
	html_escape(b, (slice){ s.p, at }, text);
	if (at < s.n)
		sb_adds(b, "\xe2\x80\xa6");
}

static void esc(strbuf *b, const char *s)
{
	html_escape(b, slice_from(s ? s : ""), true);
}

static void esc_attr(strbuf *b, const char *s)
{
	html_escape(b, slice_from(s ? s : ""), false);
}

/* ---- host names folded into ranges ---- */

typedef struct hostnum {
	const char *name;
	size_t pre, suf;  /* the number is name[pre..suf) */
	int width;        /* zero-padded width, 0 for plain numbers */
	long num;         /* -1: no number, the name stands alone */
	size_t order;     /* position in the input, for the order of patterns */
	size_t first;     /* smallest order of its pattern */
} hostnum;

/* Names alike but for their number: same text before and after it. */
static int cmp_stem(const hostnum *x, const hostnum *y)
{
	if ((x->num < 0) != (y->num < 0))
		return x->num < 0 ? 1 : -1;
	if (x->num < 0)
		return strcmp(x->name, y->name);
	size_t lx = strlen(x->name + x->suf), ly = strlen(y->name + y->suf);
	int c = x->pre != y->pre ? (x->pre < y->pre ? -1 : 1) : memcmp(x->name, y->name, x->pre);
	if (!c)
		c = lx != ly ? (lx < ly ? -1 : 1) : strcmp(x->name + x->suf, y->name + y->suf);
	return c;
}

/* One pattern of a hostlist: the same stem and the same zero padding. */
static int cmp_pattern(const hostnum *x, const hostnum *y)
{
	int c = cmp_stem(x, y);
	if (!c && x->width != y->width)
		c = x->width < y->width ? -1 : 1;
	return c;
}

static int cmp_hostnum(const void *a, const void *b)
{
	const hostnum *x = a, *y = b;
	int c = cmp_pattern(x, y);
	if (c)
		return c;
	return x->num != y->num ? (x->num < y->num ? -1 : 1) : 0;
}

static int cmp_first(const void *a, const void *b)
{
	const hostnum *x = a, *y = b;
	if (x->first != y->first)
		return x->first < y->first ? -1 : 1;
	return cmp_hostnum(a, b);
}

static void split_number(hostnum *h)
{
	size_t n = strlen(h->name), e = n;
	while (e > 0 && (h->name[e - 1] < '0' || h->name[e - 1] > '9'))
		e--;
	size_t s = e;
	while (s > 0 && h->name[s - 1] >= '0' && h->name[s - 1] <= '9')
		s--;
	h->num = -1;
	if (e == s || e - s > 9)
		return;
	h->pre = s;
	h->suf = e;
	h->num = strtol(h->name + s, NULL, 10);
	h->width = h->name[s] == '0' && e - s > 1 ? (int)(e - s) : 0;
}

void html_hostlist(strbuf *b, const model *m, const int *hosts, size_t n, size_t max)
{
	if (!n)
		return;
	hostnum *v = xcalloc(n, sizeof *v);
	for (size_t i = 0; i < n; i++) {
		v[i].name = hosts[i] >= 0 ? intern_str(&m->str, hosts[i]) : "(no host)";
		v[i].order = i;
		split_number(&v[i]);
	}
	/* a plain number as long as a padded one of its stem is one of them:
	 * gpu-node-1000 goes with gpu-node-0999 */
	qsort(v, n, sizeof *v, cmp_hostnum);
	for (size_t i = 0; i < n;) {
		size_t j = i + 1;
		unsigned padded = 0; /* bit w: a member padded to width w */
		while (j < n && !cmp_stem(&v[i], &v[j]))
			j++;
		for (size_t k = i; k < j; k++)
			padded |= v[k].num >= 0 && v[k].width ? 1u << v[k].width : 0;
		for (size_t k = i; k < j; k++)
			if (v[k].num >= 0 && !v[k].width && padded >> (v[k].suf - v[k].pre) & 1)
				v[k].width = (int)(v[k].suf - v[k].pre);
		i = j;
	}
	/* patterns in the order their first host came */
	qsort(v, n, sizeof *v, cmp_hostnum);
	for (size_t i = 0; i < n;) {
		size_t j = i + 1, first = v[i].order;
		while (j < n && v[i].num >= 0 && !cmp_pattern(&v[i], &v[j])) {
			if (v[j].order < first)
				first = v[j].order;
			j++;
		}
		for (size_t k = i; k < j; k++)
			v[k].first = first;
		i = j;
	}
	qsort(v, n, sizeof *v, cmp_first);
	size_t pieces = 0, shown = 0;
	for (size_t i = 0; i < n && pieces < max;) {
		size_t j = i + 1;
		while (j < n && v[i].num >= 0 && !cmp_pattern(&v[i], &v[j]))
			j++;
		if (pieces++)
			sb_adds(b, ", ");
		if (v[i].num < 0 || j == i + 1) {
			sb_adds(b, v[i].name);
			shown++;
			i = j;
			continue;
		}
		sb_add(b, v[i].name, v[i].pre);
		sb_addc(b, '[');
		int runs = 0;
		size_t k = i;
		while (k < j && runs < 16) {
			size_t e = k;
			while (e + 1 < j && v[e + 1].num == v[e].num + 1)
				e++;
			sb_printf(b, "%s%0*ld", runs ? "," : "", v[k].width, v[k].num);
			if (e > k)
				sb_printf(b, "-%0*ld", v[k].width, v[e].num);
			shown += e - k + 1;
			runs++;
			k = e + 1;
		}
		if (k < j)
			sb_adds(b, ",...");
		sb_addc(b, ']');
		sb_adds(b, v[i].name + v[i].suf);
		i = j;
	}
	if (shown < n)
		sb_printf(b, " and %zu more", n - shown);
	free(v);
}

void html_ranges(strbuf *b, const int *v, size_t n, size_t max)
{
	size_t i = 0, runs = 0;
	while (i < n && runs < max) {
		size_t j = i;
		while (j + 1 < n && v[j + 1] == v[j] + 1)
			j++;
		sb_printf(b, runs ? ",%d" : "%d", v[i]);
		if (j > i)
			sb_printf(b, "-%d", v[j]);
		runs++;
		i = j + 1;
	}
	if (i < n)
		sb_printf(b, " and %zu more", n - i);
}

/* ---- the page ---- */

static void counts(strbuf *b, const model *m)
{
	size_t cnt[3] = { 0 };
	for (size_t i = 0; i < m->fs.n; i++)
		cnt[m->fs.v[i].severity]++;
	sb_printf(b, "<span class=\"n-error\">%zu error%s</span>, <span class=\"n-warning\">%zu warning%s</span>, "
		     "<span class=\"n-info\">%zu info</span>",
		  cnt[SEV_ERROR], cnt[SEV_ERROR] == 1 ? "" : "s", cnt[SEV_WARNING], cnt[SEV_WARNING] == 1 ? "" : "s",
		  cnt[SEV_INFO]);
}

static void head(strbuf *b, const model *m, const report_opts *o)
{
	verdict v;
	report_verdict(m, &v);
	sb_adds(b, "<!DOCTYPE html>\n<html lang=\"en\">\n<head>\n<meta charset=\"utf-8\">\n"
		   "<meta http-equiv=\"Content-Security-Policy\" content=\"default-src 'none'; style-src 'sha256-");
	sha256_base64(b, css, sizeof css - 1);
	sb_adds(b, "'; img-src 'none'; base-uri 'none'; form-action 'none'\">\n"
		   "<meta name=\"referrer\" content=\"no-referrer\">\n"
		   "<meta name=\"viewport\" content=\"width=device-width, initial-scale=1\">\n"
		   "<meta name=\"color-scheme\" content=\"light\">\n<meta name=\"generator\" content=\"ncclog ");
	esc_attr(b, o->version);
	sb_adds(b, "\">\n<title>ncclog: ");
	html_escape_cut(b, (slice){ v.what.p ? v.what.p : "", v.what.n }, 120, false);
	sb_adds(b, "</title>\n<style>");
	sb_adds(b, css);
	sb_adds(b, "</style>\n</head>\n");
	verdict_free(&v);
}

static void job_line(strbuf *b, const model *m)
{
	jobinfo j;
	model_jobinfo(m, &j);
	sb_adds(b, "<p class=\"sub\">");
	if (j.nranks)
		sb_printf(b, "%d of %d ranks seen", j.ranks_seen, j.nranks);
	else
		sb_adds(b, "communicator size unknown");
	sb_printf(b, " on %zu host%s", j.hosts.n, j.hosts.n == 1 ? "" : "s");
	for (size_t i = 0; i < j.versions.n && i < 4; i++) {
		sb_adds(b, i ? " / " : " &middot; NCCL ");
		esc(b, intern_str(&m->str, j.versions.v[i]));
	}
	sb_adds(b, " &middot; ");
	counts(b, m);
	sb_adds(b, "</p>\n");
	jobinfo_free(&j);
}

static void verdict_html(strbuf *b, const model *m)
{
	verdict v;
	report_verdict(m, &v);
	/* the colour of the worst finding the root's group holds, as the words do */
	enum severity worst = SEV_INFO;
	for (size_t i = 0; v.root && i < m->fs.n; i++)
		if (m->fs.v[i].root == 0 && !m->fs.v[i].demoted && m->fs.v[i].severity > worst)
			worst = m->fs.v[i].severity;
	const char *cls = worst < SEV_ERROR ? "ok" : v.proven ? "cause" : "unproven";
	sb_printf(b, "<section class=\"verdict %s\" id=\"verdict\">\n<p class=\"what\"><span class=\"label\">verdict</span>", cls);
	html_escape(b, (slice){ v.what.p ? v.what.p : "", v.what.n }, true);
	sb_adds(b, "</p>\n");
	if (v.fix.n) {
		sb_printf(b, "<p class=\"fix\"><span class=\"label\">%s</span>",
			  v.proven || !v.root || v.root->severity < SEV_ERROR ? "fix" : "next");
		html_escape(b, (slice){ v.fix.p, v.fix.n }, true);
		sb_adds(b, "</p>\n");
	}
	sb_adds(b, "</section>\n");
	verdict_free(&v);
}

static const char *confidence_note(enum confidence c)
{
	return c == CONF_ESTABLISHED ? "stated by a log line"
	       : c == CONF_INFERRED  ? "inferred across ranks, not stated by one line"
				     : "a suspicion from a heuristic, not proven";
}

/* The ranks and hosts of a finding, folded. */
static void where(strbuf *b, const model *m, const finding *f)
{
	intset ranks = { 0 }, hosts = { 0 };
	model_finding_place(m, f, &ranks, &hosts);
	strbuf t = { 0 };
	if (ranks.n) {
		sb_adds(&t, ranks.n == 1 ? "rank " : "ranks ");
		html_ranges(&t, ranks.v, ranks.n, 16);
		if (ranks.n > 1)
			sb_printf(&t, " (%zu)", ranks.n);
	}
	if (hosts.n) {
		sb_adds(&t, t.n ? " on " : "on ");
		html_hostlist(&t, m, hosts.v, hosts.n, 6);
		if (hosts.n > 1)
			sb_printf(&t, " (%zu hosts)", hosts.n);
	}
	strbuf loc = { 0 };
	report_location(m, f, &loc);
	if (loc.n) {
		sb_adds(&t, t.n ? " \xc2\xb7 " : "");
		sb_add(&t, loc.p, loc.n);
	}
	if (t.n) {
		sb_adds(b, "<p class=\"where\">");
		html_escape(b, (slice){ t.p, t.n }, true);
		sb_adds(b, "</p>\n");
	}
	sb_free(&t);
	sb_free(&loc);
	intset_free(&ranks);
	intset_free(&hosts);
}

static void finding_head(strbuf *b, const model *m, const finding *f)
{
	sb_printf(b, "<span class=\"sev\">%s</span> <span class=\"fid\">", severity_name(f->severity));
	esc(b, f->id);
	sb_adds(b, "</span>");
	(void)m;
}

static void finding_body(strbuf *b, const model *m, const finding *f)
{
	if (f->title && *f->title) {
		sb_adds(b, "<p class=\"title\">");
		esc(b, f->title);
		sb_adds(b, "</p>\n");
	}
	strbuf msg = { 0 };
	report_message(m, f, &msg);
	sb_adds(b, "<p class=\"msg\">");
	html_escape(b, (slice){ msg.p ? msg.p : "", msg.n }, true);
	sb_adds(b, "</p>\n");
	sb_free(&msg);
	where(b, m, f);
	if (f->nev) {
		sb_adds(b, "<pre class=\"ev\">");
		for (size_t i = 0; i < f->nev; i++) {
			const evidence *e = &f->ev[i];
			if (e->file >= 0) {
				sb_adds(b, "<span class=\"at\">");
				esc(b, m->in[e->file].name);
				if (e->line)
					sb_printf(b, ":%llu", (unsigned long long)e->line);
				sb_adds(b, ":</span> ");
			}
			esc(b, e->text);
			sb_addc(b, '\n');
		}
		if (f->count > f->nev)
			sb_printf(b, "<span class=\"more\">... %llu more occurrences</span>\n",
				  (unsigned long long)(f->count - f->nev));
		sb_adds(b, "</pre>\n");
	}
	if (f->hint) {
		sb_adds(b, "<p class=\"help\"><span class=\"label\">help</span>");
		esc(b, f->hint);
		sb_adds(b, "</p>\n");
	}
	if (f->confidence != CONF_ESTABLISHED)
		sb_printf(b, "<p class=\"note\">note: %s</p>\n", confidence_note(f->confidence));
	if (f->demoted)
		sb_adds(b, "<p class=\"note\">note: lowered to info: a proven cause explains it</p>\n");
	if (f->cause >= 0 && (size_t)f->cause < m->fs.n) {
		const finding *c = &m->fs.v[f->cause];
		sb_printf(b, "<p class=\"note\">note: likely a consequence of <a href=\"#f%d\">%s[", f->cause,
			  severity_name(c->severity));
		esc(b, c->id);
		sb_adds(b, "]</a></p>\n");
	}
}

static void confidence_badge(strbuf *b, const finding *f)
{
	sb_printf(b, " <span class=\"conf conf-%s\" title=\"%s\">%s</span>", confidence_name(f->confidence),
		  confidence_note(f->confidence), confidence_name(f->confidence));
}

/* A consequence: one line (its severity, id and message) that unfolds to
 * the finding in full. */
static void consequence_html(strbuf *b, const model *m, const finding *f, size_t idx, bool open)
{
	int d = f->depth < 1 ? 1 : f->depth > 4 ? 4 : f->depth;
	sb_printf(b, "<details class=\"d%d\"%s><summary class=\"sev-%s\">", d, open ? " open" : "",
		  severity_name(f->severity));
	finding_head(b, m, f);
	sb_adds(b, " ");
	strbuf msg = { 0 };
	report_message(m, f, &msg);
	html_escape_cut(b, (slice){ msg.p ? msg.p : "", msg.n }, 200, true);
	sb_free(&msg);
	sb_printf(b, "</summary>\n<article class=\"finding sev-%s\" id=\"f%zu\">\n<h3>", severity_name(f->severity), idx);
	finding_head(b, m, f);
	confidence_badge(b, f);
	sb_adds(b, "</h3>\n");
	finding_body(b, m, f);
	sb_adds(b, "</article>\n</details>\n");
}

static void findings_html(strbuf *b, const model *m, const report_opts *o)
{
	sb_adds(b, "<section id=\"findings\">\n<h2>Findings</h2>\n");
	if (!m->fs.n)
		sb_adds(b, "<p>No finding: nothing in these logs points at a problem.</p>\n");
	size_t roots = 0, hidden = 0;
	for (size_t i = 0; i < m->fs.n; i++) {
		const finding *f = &m->fs.v[i];
		if (f->root != (int)i && f->root >= 0)
			continue;
		if (roots++ >= HTML_MAX_ROOTS) {
			hidden++;
			continue;
		}
		sb_printf(b, "<article class=\"finding sev-%s\" id=\"f%zu\">\n<h3>", severity_name(f->severity), i);
		finding_head(b, m, f);
		confidence_badge(b, f);
		sb_adds(b, "</h3>\n");
		finding_body(b, m, f);
		if (f->nconseq) {
			sb_printf(b, "<div class=\"conseq\"><p><span class=\"label\">explains</span>%d other finding%s</p>\n",
				  f->nconseq, f->nconseq == 1 ? "" : "s");
			size_t shown = 0, k = i + 1;
			for (; k < m->fs.n && m->fs.v[k].root == (int)i; k++)
				if (shown++ < HTML_MAX_CONSEQ)
					consequence_html(b, m, &m->fs.v[k], k, o->verbose);
			if (shown > HTML_MAX_CONSEQ)
				sb_printf(b, "<p class=\"more\">... %zu more consequences</p>\n", shown - HTML_MAX_CONSEQ);
			sb_adds(b, "</div>\n");
		}
		sb_adds(b, "</article>\n");
	}
	if (hidden)
		sb_printf(b, "<p class=\"more\">... %zu more findings (--format json lists them all)</p>\n", hidden);
	sb_adds(b, "</section>\n");
}

/* ---- the job summary ---- */

/* Rows of a table that fold into one when their keys are equal. */
typedef struct keyed {
	int k[5];
	size_t i;            /* the row */
} keyed;

static int cmp_keyed(const void *a, const void *b)
{
	const keyed *x = a, *y = b;
	for (int j = 0; j < 5; j++)
		if (x->k[j] != y->k[j])
			return x->k[j] < y->k[j] ? -1 : 1;
	return x->i < y->i ? -1 : x->i > y->i;
}

/* Numbers the groups of equal keys in the order their first row comes:
 * grp[row] is its group. Sorts v; O(n log n) whatever the input. Returns
 * the number of groups. */
static size_t group_rows(keyed *v, size_t n, size_t *grp)
{
	qsort(v, n, sizeof *v, cmp_keyed);
	size_t *lead = xcalloc(n ? n : 1, sizeof *lead);
	for (size_t a = 0; a < n;) {
		size_t e = a + 1;
		while (e < n && !memcmp(v[e].k, v[a].k, sizeof v[a].k))
			e++;
		for (size_t j = a; j < e; j++)
			lead[v[j].i] = v[a].i; /* the smallest row of the run */
		a = e;
	}
	size_t ng = 0;
	for (size_t i = 0; i < n; i++)
		grp[i] = lead[i] == i ? ng++ : grp[lead[i]];
	free(lead);
	return ng;
}


typedef struct hostgroup {
	size_t first;        /* a row of the group */
	intset hosts, ranks;
	size_t per_host;     /* ranks on each of its hosts */
} hostgroup;

static void hosts_html(strbuf *b, const model *m)
{
	hostrow *rows;
	size_t n = report_hosts(m, &rows);
	if (!n) {
		report_hosts_free(rows, n);
		return;
	}
	/* hosts with the same interface, network, phase and rank count are one row */
	keyed *kv = xcalloc(n, sizeof *kv);
	size_t *grp = xcalloc(n, sizeof *grp);
	for (size_t i = 0; i < n; i++)
		kv[i] = (keyed){ { rows[i].boot_name, rows[i].net, (int)rows[i].min_phase, (int)rows[i].max_phase,
				   (int)rows[i].ranks.n }, i };
	size_t ng = group_rows(kv, n, grp);
	hostgroup *g = xcalloc(ng, sizeof *g);
	for (size_t i = n; i-- > 0;) {
		hostgroup *h = &g[grp[i]];
		h->first = i;
		h->per_host = rows[i].ranks.n;
	}
	for (size_t i = 0; i < n; i++) {
		intset_add(&g[grp[i]].hosts, rows[i].host);
		intset_addall(&g[grp[i]].ranks, &rows[i].ranks);
	}
	free(kv);
	free(grp);
	sb_printf(b, "<h4>Hosts</h4>\n");
	size_t big = 0;
	for (size_t k = 1; k < ng; k++)
		if (g[k].hosts.n > g[big].hosts.n)
			big = k;
	if (n > 1 && ng == 1) {
		sb_printf(b, "<p>all %zu hosts alike</p>\n", n);
	} else if (n > 2 && g[big].hosts.n * 2 > n) {
		intset rest = { 0 };
		for (size_t k = 0; k < ng; k++)
			if (k != big)
				intset_addall(&rest, &g[k].hosts);
		strbuf t = { 0 };
		html_hostlist(&t, m, rest.v, rest.n, 6);
		sb_printf(b, "<p>all %zu hosts alike except ", n);
		html_escape(b, (slice){ t.p, t.n }, true);
		sb_adds(b, "</p>\n");
		sb_free(&t);
		intset_free(&rest);
	}
	sb_adds(b, "<table class=\"hosts\">\n<thead><tr><th>hosts</th><th>ranks</th><th>interface</th><th>net</th>"
		   "<th>phase</th></tr></thead>\n<tbody>\n");
	for (size_t k = 0; k < ng && k < HTML_MAX_HOSTROWS; k++) {
		const hostrow *h = &rows[g[k].first];
		strbuf t = { 0 };
		html_hostlist(&t, m, g[k].hosts.v, g[k].hosts.n, 8);
		sb_adds(b, "<tr><td class=\"hostname\" title=\"");
		html_escape(b, (slice){ t.p, t.n }, false);
		sb_adds(b, "\">");
		html_escape(b, (slice){ t.p, t.n }, true);
		if (g[k].hosts.n > 1)
			sb_printf(b, " (%zu)", g[k].hosts.n);
		sb_adds(b, "</td><td>");
		sb_clear(&t);
		html_ranges(&t, g[k].ranks.v, g[k].ranks.n, 16);
		esc(b, t.p);
		if (g[k].hosts.n > 1 && g[k].per_host)
			sb_printf(b, " (%zu per host)", g[k].per_host);
		sb_adds(b, "</td><td>");
		if (h->boot_name >= 0) {
			esc(b, intern_str(&m->str, h->boot_name));
			if (g[k].hosts.n == 1 && h->boot_addr >= 0) {
				sb_adds(b, " ");
				esc(b, intern_str(&m->str, h->boot_addr));
			}
		}
		sb_adds(b, "</td><td>");
		if (h->net >= 0)
			esc(b, intern_str(&m->str, h->net));
		sb_printf(b, "</td><td>%s", phase_name(h->min_phase));
		if (h->max_phase != h->min_phase)
			sb_printf(b, "..%s", phase_name(h->max_phase));
		sb_adds(b, "</td></tr>\n");
		sb_free(&t);
	}
	if (ng > HTML_MAX_HOSTROWS)
		sb_printf(b, "<tr><td colspan=\"5\" class=\"more\">... %zu more kinds of host</td></tr>\n",
			  ng - HTML_MAX_HOSTROWS);
	sb_adds(b, "</tbody></table>\n");
	for (size_t k = 0; k < ng; k++) {
		intset_free(&g[k].hosts);
		intset_free(&g[k].ranks);
	}
	free(g);
	report_hosts_free(rows, n);
}

/* Transports between hosts, one row per kind of link. */
static void links_html(strbuf *b, const model *m)
{
	hostlink *links;
	size_t nl = model_hostlinks(m, &links);
	if (!nl) {
		free(links);
		return;
	}
	sb_adds(b, "<h4>Transports</h4>\n<table>\n<thead><tr><th>transport</th><th>where</th><th>for example</th></tr>"
		   "</thead>\n<tbody>\n");
	keyed *kv = xcalloc(nl, sizeof *kv);
	size_t *grp = xcalloc(nl, sizeof *grp);
	for (size_t i = 0; i < nl; i++)
		kv[i] = (keyed){ { (int)links[i].via, links[i].a == links[i].b, 0, 0, 0 }, i };
	size_t rows = group_rows(kv, nl, grp);
	size_t *cnt = xcalloc(rows, sizeof *cnt), *first = xcalloc(rows, sizeof *first);
	for (size_t i = nl; i-- > 0;) {
		cnt[grp[i]]++;
		first[grp[i]] = i;
	}
	for (size_t k = 0; k < rows && k < HTML_MAX_LINKS; k++) {
		const hostlink *l = &links[first[k]];
		strbuf t = { 0 };
		transport_str(l->via, &t);
		sb_adds(b, "<tr><td>");
		esc(b, t.p);
		if (l->a == l->b)
			sb_printf(b, "</td><td>within %zu host%s</td><td>", cnt[k], cnt[k] == 1 ? "" : "s");
		else
			sb_printf(b, "</td><td>between %zu host pair%s</td><td>", cnt[k], cnt[k] == 1 ? "" : "s");
		esc(b, intern_str(&m->str, l->a));
		if (l->a != l->b) {
			sb_adds(b, " &harr; ");
			esc(b, intern_str(&m->str, l->b));
		}
		sb_adds(b, "</td></tr>\n");
		sb_free(&t);
	}
	free(kv);
	free(grp);
	free(cnt);
	free(first);
	if (rows > HTML_MAX_LINKS)
		sb_printf(b, "<tr><td colspan=\"3\" class=\"more\">... %zu more</td></tr>\n", rows - HTML_MAX_LINKS);
	sb_adds(b, "</tbody></table>\n");
	free(links);
}

/* NCCL_* settings: one row per variable and value, with the hosts that set it. */
static void env_html(strbuf *b, const model *m)
{
	if (!m->nenv)
		return;
	sb_adds(b, "<h4>Environment</h4>\n<table>\n<thead><tr><th>variable</th><th>value</th><th>hosts</th></tr>"
		   "</thead>\n<tbody>\n");
	keyed *kv = xcalloc(m->nenv, sizeof *kv);
	size_t *grp = xcalloc(m->nenv, sizeof *grp);
	for (size_t i = 0; i < m->nenv; i++)
		kv[i] = (keyed){ { m->env[i].var, m->env[i].val, 0, 0, 0 }, i };
	size_t rows = group_rows(kv, m->nenv, grp);
	size_t shown = rows < HTML_MAX_ENV ? rows : HTML_MAX_ENV;
	intset *hosts = xcalloc(shown ? shown : 1, sizeof *hosts);
	size_t *first = xcalloc(shown ? shown : 1, sizeof *first);
	for (size_t i = m->nenv; i-- > 0;)
		if (grp[i] < shown)
			first[grp[i]] = i;
	for (size_t i = 0; i < m->nenv; i++)
		if (grp[i] < shown && m->procs[m->env[i].proc].host >= 0)
			intset_add(&hosts[grp[i]], m->procs[m->env[i].proc].host);
	for (size_t k = 0; k < shown; k++) {
		const envset *e = &m->env[first[k]];
		sb_adds(b, "<tr><td class=\"mono\">");
		esc(b, intern_str(&m->str, e->var));
		sb_adds(b, "</td><td class=\"mono\">");
		esc(b, intern_str(&m->str, e->val));
		sb_adds(b, "</td><td>");
		strbuf t = { 0 };
		html_hostlist(&t, m, hosts[k].v, hosts[k].n, 6);
		html_escape(b, (slice){ t.p ? t.p : "", t.n }, true);
		sb_free(&t);
		sb_adds(b, "</td></tr>\n");
		intset_free(&hosts[k]);
	}
	free(hosts);
	free(first);
	free(kv);
	free(grp);
	if (rows > HTML_MAX_ENV)
		sb_printf(b, "<tr><td colspan=\"3\" class=\"more\">... %zu more</td></tr>\n", rows - HTML_MAX_ENV);
	sb_adds(b, "</tbody></table>\n");
}

static void summary_html(strbuf *b, const model *m)
{
	jobinfo j;
	model_jobinfo(m, &j);
	sb_adds(b, "<section id=\"job\">\n<h2>Job</h2>\n<table class=\"facts\">\n");
	sb_adds(b, "<tr><th>ranks seen</th><td>");
	if (j.nranks)
		sb_printf(b, "%d of %d", j.ranks_seen, j.nranks);
	else
		sb_adds(b, "communicator size unknown");
	sb_printf(b, "</td></tr>\n<tr><th>hosts</th><td>%zu</td></tr>\n", j.hosts.n);
	if (j.versions.n) {
		sb_adds(b, "<tr><th>NCCL</th><td>");
		for (size_t i = 0; i < j.versions.n && i < 8; i++) {
			sb_adds(b, i ? ", " : "");
			esc(b, intern_str(&m->str, j.versions.v[i]));
		}
		if (j.versions.n > 8)
			sb_printf(b, " and %zu more", j.versions.n - 8);
		sb_adds(b, "</td></tr>\n");
	}
	if (j.driver)
		sb_printf(b, "<tr><th>CUDA driver</th><td>%ld.%ld</td></tr>\n", j.driver / 1000, (j.driver % 1000) / 10);
	if (m->ncomms > 1) {
		sb_printf(b, "<tr><th>communicators</th><td>%zu (", m->ncomms);
		for (size_t i = 0; i < m->ncomms && i < 8; i++)
			sb_printf(b, "%s%d", i ? ", " : "", m->comms[i].nranks);
		sb_adds(b, m->ncomms > 8 ? ", ... ranks)</td></tr>\n" : " ranks)</td></tr>\n");
	}
	uint64_t lines = 0, bytes = 0;
	for (size_t i = 0; i < m->nin; i++)
		lines += m->in[i].lines, bytes += m->in[i].bytes;
	sb_printf(b, "<tr><th>inputs</th><td>%zu file%s, %llu lines, %llu bytes", m->nin, m->nin == 1 ? "" : "s",
		  (unsigned long long)lines, (unsigned long long)bytes);
	for (size_t i = 0; i < m->nin && i < HTML_MAX_INPUTS; i++) {
		sb_adds(b, i ? ", " : ": ");
		sb_adds(b, "<span class=\"mono\">");
		esc(b, m->in[i].name);
		sb_adds(b, "</span>");
	}
	if (m->nin > HTML_MAX_INPUTS)
		sb_printf(b, " <span class=\"more\">... %zu more</span>", m->nin - HTML_MAX_INPUTS);
	sb_adds(b, "</td></tr>\n");
	int ff = model_first_failure(m);
	if (ff >= 0) {
		intset one = { 0 };
		intset_add(&one, ff);
		strbuf d = { 0 };
		model_describe(m, &one, &d);
		const evref *e = &m->procs[ff].ev_warn;
		sb_adds(b, "<tr><th>first failure</th><td>");
		html_escape(b, (slice){ d.p ? d.p : "", d.n }, true);
		if (e->file >= 0) {
			sb_adds(b, " <span class=\"at\">(");
			esc(b, m->in[e->file].name);
			sb_printf(b, ":%llu)</span>", (unsigned long long)e->line);
		}
		sb_adds(b, "</td></tr>\n");
		sb_free(&d);
		intset_free(&one);
	}
	sb_adds(b, "</table>\n");
	jobinfo_free(&j);
	hosts_html(b, m);
	links_html(b, m);
	env_html(b, m);
	sb_adds(b, "</section>\n");
}

int report_html(FILE *out, const model *m, const report_opts *o)
{
	strbuf b = { 0 };
	head(&b, m, o);
	sb_adds(&b, "<body>\n<main>\n<h1>ncclog report</h1>\n");
	job_line(&b, m);
	verdict_html(&b, m);
	sb_adds(&b, "<section id=\"ranks\">\n<h2>Ranks</h2>\n");
	html_timeline(&b, m);
	sb_adds(&b, "</section>\n");
	findings_html(&b, m, o);
	summary_html(&b, m);
	sb_adds(&b, "<footer>ncclog ");
	esc(&b, o->version);
	sb_adds(&b, " &middot; <span class=\"mono\">ncclog explain ID</span> tells what a finding means</footer>\n"
		    "</main>\n</body>\n</html>\n");
	int rc = b.n && fwrite(b.p, 1, b.n, out) != b.n ? -1 : 0;
	sb_free(&b);
	return rc;
}
