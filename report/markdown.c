/* Markdown for pasting into an issue: a summary table, the findings with
 * their hints, and the evidence folded in <details>. */
#include "report.h"

#include <string.h>

#include "../util/escape.h"
#include "hostlist.h"

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
	strbuf b = { 0 };
	jobinfo j;
	model_jobinfo(m, &j);
	sb_adds(&b, "## ncclog report\n\n");
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
	sb_adds(&b, "| | |\n|---|---|\n");
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
	size_t cnt[3] = { 0 }, shown = 0;
	for (size_t i = 0; i < m->fs.n; i++) {
		cnt[m->fs.v[i].severity]++;
		shown += report_shows(o, &m->fs.v[i]);
	}
	sb_printf(&b, "| findings | %zu error%s, %zu warning%s, %zu info", cnt[2], cnt[2] == 1 ? "" : "s", cnt[1],
		  cnt[1] == 1 ? "" : "s", cnt[0]);
	if (shown < m->fs.n)
		sb_printf(&b, " (%zu shown)", shown);
	sb_adds(&b, " |\n");
	int ff = model_first_failure(m);
	if (ff >= 0) {
		intset one = { 0 };
		intset_add(&one, ff);
		strbuf d = { 0 };
		model_describe(m, &one, &d);
		const evref *e = &m->procs[ff].ev_warn;
		sb_adds(&b, "| first failure | ");
		if (d.n) {
			md_text(&b, d.p);
			sb_adds(&b, ", ");
		}
		sb_adds(&b, "`");
		md_code(&b, m->in[e->file].name);
		sb_printf(&b, ":%llu` |\n", (unsigned long long)e->line);
		sb_free(&d);
		intset_free(&one);
	}
	sb_addc(&b, '\n');
	hostgroups hg;
	report_hostgroups(m, &hg);
	if (hg.nrows && !o->no_summary) {
		strbuf alike = { 0 };
		if (hg.nrows > 8 && report_hosts_alike(&alike, m, &hg)) {
			md_text(&b, alike.p);
			sb_adds(&b, "\n\n");
		}
		sb_free(&alike);
		/* a row per host in small jobs; alike hosts folded in large ones */
		bool fold = hg.nrows > 8;
		sb_printf(&b, "| %s | ranks | interface | net | phase |\n|---|---|---|---|---|\n", fold ? "hosts" : "host");
		size_t n = fold ? hg.n : hg.nrows;
		for (size_t i = 0; i < n && i < 32; i++) {
			const hostrow *h = fold ? hg.v[i].row : &hg.rows[i];
			const intset *ranks = fold ? &hg.v[i].ranks : &h->ranks;
			strbuf t = { 0 };
			if (fold)
				hostlist_format(&t, m, hg.v[i].hosts.v, hg.v[i].hosts.n, 4);
			else
				sb_adds(&t, intern_str(&m->str, h->host));
			sb_adds(&b, "| ");
			md_text(&b, t.p);
			if (fold && hg.v[i].hosts.n > 1)
				sb_printf(&b, " (%zu hosts)", hg.v[i].hosts.n);
			sb_clear(&t);
			hostlist_ranges(&t, ranks->v, ranks->n, 8);
			sb_printf(&b, " | %s | ", t.p ? t.p : "");
			if (h->boot_name >= 0) {
				md_text(&b, intern_str(&m->str, h->boot_name));
				if (!fold || hg.v[i].hosts.n == 1) {
					sb_adds(&b, " ");
					md_text(&b, intern_str(&m->str, h->boot_addr));
				}
			}
			sb_adds(&b, " | ");
			if (h->net >= 0)
				md_text(&b, intern_str(&m->str, h->net));
			sb_printf(&b, " | %s |\n", phase_name(h->min_phase));
			sb_free(&t);
		}
		if (n > 32)
			sb_printf(&b, "| ... %zu more | | | | |\n", n - 32);
		sb_addc(&b, '\n');
	}
	report_hostgroups_free(&hg);
	jobinfo_free(&j);
	for (size_t i = 0; i < m->fs.n; i++) {
		const finding *f = &m->fs.v[i];
		if (!report_block(o, m, i))
			continue;
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
		if (f->nconseq && f->root == (int)i && !o->brief) {
			sb_adds(&b, "It explains:\n\n");
			for (size_t k = i + 1; k < m->fs.n && m->fs.v[k].root == (int)i; k++) {
				const finding *c = &m->fs.v[k];
				if (!report_shows(o, c))
					continue;
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
