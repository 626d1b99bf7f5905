/* Markdown for pasting into an issue: a summary table, the findings with
 * their hints, and the evidence folded in <details>. */
#include "report.h"

#include <string.h>

#include "../util/escape.h"

/* Text for a table cell or a paragraph: escaped, no pipes or markup. */
static void md_text(strbuf *b, const char *s)
{
	strbuf t = { 0 };
	escape_text(&t, slice_from(s));
	for (size_t i = 0; i < t.n; i++) {
		char c = t.p[i];
		if (strchr("|*_`<>[]#\\", c))
			sb_addc(b, '\\');
		sb_addc(b, c);
	}
	sb_free(&t);
}

/* Log lines inside a fenced block: a run of backticks could close it. */
static void md_code(strbuf *b, const char *s)
{
	strbuf t = { 0 };
	escape_text(&t, slice_from(s));
	for (size_t i = 0; i < t.n; i++)
		sb_addc(b, t.p[i] == '`' ? '\'' : t.p[i]);
	sb_free(&t);
}

int report_markdown(FILE *out, const model *m, const report_opts *o)
{
	(void)o;
	strbuf b = { 0 };
	jobinfo j;
	model_jobinfo(m, &j);
	sb_adds(&b, "## ncclog report\n\n| | |\n|---|---|\n");
	if (j.nranks)
		sb_printf(&b, "| ranks seen | %d of %d |\n", j.ranks_seen, j.nranks);
	sb_printf(&b, "| hosts | %zu |\n", j.hosts.n);
	if (j.versions.n) {
		sb_adds(&b, "| NCCL | ");
		for (size_t i = 0; i < j.versions.n; i++) {
			if (i)
				sb_adds(&b, ", ");
			md_text(&b, intern_str(&m->str, j.versions.v[i]));
		}
		sb_adds(&b, " |\n");
	}
	size_t cnt[3] = { 0 };
	for (size_t i = 0; i < m->fs.n; i++)
		cnt[m->fs.v[i].severity]++;
	sb_printf(&b, "| findings | %zu error, %zu warning, %zu info |\n\n", cnt[2], cnt[1], cnt[0]);
	hostrow *rows;
	size_t n = report_hosts(m, &rows);
	if (n) {
		sb_adds(&b, "| host | ranks | interface | net | phase |\n|---|---|---|---|---|\n");
		for (size_t i = 0; i < n; i++) {
			strbuf r = { 0 };
			ranges_format(&r, rows[i].ranks.v, rows[i].ranks.n);
			sb_adds(&b, "| ");
			md_text(&b, intern_str(&m->str, rows[i].host));
			sb_printf(&b, " | %s | ", r.p ? r.p : "");
			if (rows[i].boot_name >= 0) {
				md_text(&b, intern_str(&m->str, rows[i].boot_name));
				sb_adds(&b, " ");
				md_text(&b, intern_str(&m->str, rows[i].boot_addr));
			}
			sb_adds(&b, " | ");
			if (rows[i].net >= 0)
				md_text(&b, intern_str(&m->str, rows[i].net));
			sb_printf(&b, " | %s |\n", phase_name(rows[i].min_phase));
			sb_free(&r);
		}
		sb_addc(&b, '\n');
	}
	report_hosts_free(rows, n);
	jobinfo_free(&j);
	verdict v;
	report_verdict(m, &v);
	sb_adds(&b, "**Verdict:** ");
	md_text(&b, v.what.p ? v.what.p : "");
	sb_adds(&b, "\n\n");
	if (v.fix.n) {
		sb_adds(&b, v.proven || !v.root || v.root->severity < SEV_ERROR ? "**Fix:** " : "**Next:** ");
		md_text(&b, v.fix.p);
		sb_adds(&b, "\n\n");
	}
	verdict_free(&v);
	for (size_t i = 0; i < m->fs.n; i++) {
		const finding *f = &m->fs.v[i];
		sb_printf(&b, "### %s `%s`\n\n", f->severity == SEV_ERROR ? "Error" : f->severity == SEV_WARNING ? "Warning" : "Info", f->id);
		strbuf msg = { 0 };
		report_message(m, f, &msg);
		md_text(&b, msg.p);
		sb_free(&msg);
		sb_adds(&b, "\n\n");
		if (f->hint) {
			sb_adds(&b, "**Fix:** ");
			md_text(&b, f->hint);
			sb_adds(&b, "\n\n");
		}
		if (f->nev) {
			sb_adds(&b, "<details><summary>evidence</summary>\n\n```text\n");
			for (size_t k = 0; k < f->nev; k++) {
				if (f->ev[k].file >= 0) {
					md_code(&b, m->in[f->ev[k].file].name);
					sb_printf(&b, ":%llu: ", (unsigned long long)f->ev[k].line);
				}
				md_code(&b, f->ev[k].text);
				sb_addc(&b, '\n');
			}
			sb_adds(&b, "```\n\n</details>\n\n");
		}
		if (f->cause >= 0) {
			sb_adds(&b, "Likely a consequence of `");
			sb_adds(&b, m->fs.v[f->cause].id);
			sb_adds(&b, "`.\n\n");
		}
		if (f->nconseq) {
			sb_adds(&b, "It explains:\n\n");
			for (size_t k = i + 1; k < m->fs.n && m->fs.v[k].root == (int)i; k++) {
				const finding *c = &m->fs.v[k];
				strbuf cm = { 0 };
				report_message(m, c, &cm);
				sb_printf(&b, "- %s `%s`: ", severity_name(c->severity), c->id);
				md_text(&b, cm.p);
				sb_addc(&b, '\n');
				sb_free(&cm);
			}
			sb_addc(&b, '\n');
		}
	}
	int rc = b.n && fwrite(b.p, 1, b.n, out) != b.n ? -1 : 0;
	sb_free(&b);
	return rc;
}
