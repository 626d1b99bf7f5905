/* One self-contained HTML page: the verdict, the per-rank timeline, the
 * findings with their evidence and their consequences folded under them,
 * and the job summary. No script, no fetch: the Content-Security-Policy
 * allows the one inline style sheet by its hash and nothing else, so even
 * markup that slipped past the escaper could neither run nor load. */
#include "html.h"

#include <stdlib.h>
#include <string.h>

#include "../util/sha256.h"
#include "hostlist.h"

/* Lists are cut here, with a count of what was left out. */
#define HTML_MAX_ROOTS 200
#define HTML_MAX_CONSEQ 64

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

static void esc(strbuf *b, const char *s)
{
	html_escape_str(b, s, true);
}

static void esc_attr(strbuf *b, const char *s)
{
	html_escape_str(b, s, false);
}

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
		hostlist_ranges(&t, ranks.v, ranks.n, 16);
		if (ranks.n > 1)
			sb_printf(&t, " (%zu)", ranks.n);
	}
	if (hosts.n) {
		sb_adds(&t, t.n ? " on " : "on ");
		hostlist_format(&t, m, hosts.v, hosts.n, 6);
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

/* "error socket-iface-virtual": the severity badge and the id. */
static void finding_head(strbuf *b, const finding *f)
{
	sb_printf(b, "<span class=\"sev\">%s</span> <span class=\"fid\">", severity_name(f->severity));
	esc(b, f->id);
	sb_adds(b, "</span>");
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
	finding_head(b, f);
	sb_adds(b, " ");
	strbuf msg = { 0 };
	report_message(m, f, &msg);
	html_escape_cut(b, (slice){ msg.p ? msg.p : "", msg.n }, 200, true);
	sb_free(&msg);
	sb_printf(b, "</summary>\n<article class=\"finding sev-%s\" id=\"f%zu\">\n<h3>", severity_name(f->severity), idx);
	finding_head(b, f);
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
		/* -v opens the consequences under their root, it does not list them apart */
		if ((f->root != (int)i && f->root >= 0 && report_shows(o, &m->fs.v[f->root])) || !report_shows(o, f))
			continue;
		if (roots++ >= HTML_MAX_ROOTS) {
			hidden++;
			continue;
		}
		sb_printf(b, "<article class=\"finding sev-%s\" id=\"f%zu\">\n<h3>", severity_name(f->severity), i);
		finding_head(b, f);
		confidence_badge(b, f);
		sb_adds(b, "</h3>\n");
		finding_body(b, m, f);
		if (f->nconseq && f->root == (int)i && !o->brief) {
			sb_printf(b, "<div class=\"conseq\"><p><span class=\"label\">explains</span>%d other finding%s</p>\n",
				  f->nconseq, f->nconseq == 1 ? "" : "s");
			size_t shown = 0, k = i + 1;
			for (; k < m->fs.n && m->fs.v[k].root == (int)i; k++)
				if (report_shows(o, &m->fs.v[k]) && shown++ < HTML_MAX_CONSEQ)
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
	if (!o->no_summary)
		html_job(&b, m);
	sb_adds(&b, "<footer>ncclog ");
	esc(&b, o->version);
	sb_adds(&b, " &middot; <span class=\"mono\">ncclog explain ID</span> tells what a finding means</footer>\n"
		    "</main>\n</body>\n</html>\n");
	int rc = b.n && fwrite(b.p, 1, b.n, out) != b.n ? -1 : 0;
	sb_free(&b);
	return rc;
}
