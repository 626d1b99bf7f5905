/* Compiler-style text: "file:line: severity[id]: message", the evidence,
 * "help:", then a short job summary. */
#include "report.h"

#include <stdlib.h>
#include <string.h>

#include "../util/escape.h"

#define C_RESET "\033[0m"
#define C_BOLD "\033[1m"
#define C_DIM "\033[2m"

static const char *sev_color(enum severity s)
{
	return s == SEV_ERROR ? "\033[1;31m" : s == SEV_WARNING ? "\033[1;33m" : "\033[1;36m";
}

static void put(strbuf *b, bool color, const char *code)
{
	if (color)
		sb_adds(b, code);
}

static void finding_text(strbuf *b, const model *m, const findings *fs, const finding *f, bool color)
{
	strbuf loc = { 0 };
	report_location(m, f, &loc);
	if (loc.n) {
		put(b, color, C_BOLD);
		escape_text(b, (slice){ loc.p, loc.n });
		sb_adds(b, ": ");
		put(b, color, C_RESET);
	}
	put(b, color, sev_color(f->severity));
	sb_adds(b, severity_name(f->severity));
	put(b, color, C_RESET);
	sb_adds(b, "[");
	put(b, color, C_BOLD);
	sb_adds(b, f->id);
	put(b, color, C_RESET);
	sb_adds(b, "]: ");
	strbuf msg = { 0 };
	report_message(m, f, &msg);
	escape_text(b, (slice){ msg.p, msg.n });
	sb_addc(b, '\n');
	for (size_t i = 0; i < f->nev; i++) {
		sb_adds(b, "    ");
		if (i > 0 && f->ev[i].file >= 0) {
			put(b, color, C_DIM);
			escape_text(b, slice_from(m->in[f->ev[i].file].name));
			if (f->ev[i].line)
				sb_printf(b, ":%llu", (unsigned long long)f->ev[i].line);
			sb_adds(b, ": ");
			put(b, color, C_RESET);
		}
		escape_text(b, slice_from(f->ev[i].text));
		sb_addc(b, '\n');
	}
	if (f->hint) {
		sb_adds(b, "  ");
		put(b, color, "\033[1;32m");
		sb_adds(b, "help");
		put(b, color, C_RESET);
		sb_adds(b, ": ");
		escape_text(b, slice_from(f->hint));
		sb_addc(b, '\n');
	}
	if (f->confidence != CONF_ESTABLISHED)
		sb_printf(b, "  note: %s\n",
			  f->confidence == CONF_INFERRED ? "inferred across ranks, not stated by one line"
							  : "a suspicion from a heuristic, not proven");
	if (f->cause >= 0) {
		sb_printf(b, "  note: likely a consequence of %s[%s]\n", severity_name(fs->v[f->cause].severity),
			  fs->v[f->cause].id);
	}
	sb_free(&loc);
	sb_free(&msg);
}

/* A consequence folded under its root: one line. */
static void consequence_line(strbuf *b, const model *m, const finding *f, bool color)
{
	strbuf loc = { 0 }, msg = { 0 };
	report_location(m, f, &loc);
	sb_adds(b, "    ");
	for (int d = 1; d < f->depth && d < 4; d++)
		sb_adds(b, "  ");
	if (loc.n) {
		escape_text(b, (slice){ loc.p, loc.n });
		sb_adds(b, ": ");
	}
	put(b, color, sev_color(f->severity));
	sb_adds(b, severity_name(f->severity));
	put(b, color, C_RESET);
	sb_printf(b, "[%s]: ", f->id);
	report_message(m, f, &msg);
	escape_text(b, (slice){ msg.p, msg.n });
	sb_addc(b, '\n');
	sb_free(&loc);
	sb_free(&msg);
}

/* The answer first: what went wrong and what to do, in a line or two. */
static void verdict_text(strbuf *b, const model *m, bool color)
{
	verdict v;
	report_verdict(m, &v);
	put(b, color, C_BOLD);
	sb_adds(b, "verdict: ");
	put(b, color, C_RESET);
	escape_text(b, (slice){ v.what.p ? v.what.p : "", v.what.n });
	sb_addc(b, '\n');
	if (v.fix.n) {
		sb_adds(b, "  ");
		put(b, color, "\033[1;32m");
		sb_adds(b, v.proven || !v.root || v.root->severity < SEV_ERROR ? "fix" : "next");
		put(b, color, C_RESET);
		sb_adds(b, ": ");
		escape_text(b, (slice){ v.fix.p, v.fix.n });
		sb_addc(b, '\n');
	}
	sb_addc(b, '\n');
	verdict_free(&v);
}

/* NCCL_* settings per host, when they differ or are few. */
static void env_summary(strbuf *b, const model *m)
{
	if (!m->nenv)
		return;
	strbuf l = { 0 };
	sb_adds(&l, "  env:");
	for (size_t i = 0; i < m->nenv && i < 64; i++) {
		const envset *e = &m->env[i];
		int host = m->procs[e->proc].host;
		bool dup = false; /* one entry per (variable, value, host) */
		for (size_t k = 0; k < i && !dup; k++)
			dup = m->env[k].var == e->var && m->env[k].val == e->val && m->procs[m->env[k].proc].host == host;
		if (dup)
			continue;
		sb_printf(&l, " %s=%s", intern_str(&m->str, e->var), intern_str(&m->str, e->val));
		if (host >= 0)
			sb_printf(&l, "(%s)", intern_str(&m->str, host));
	}
	escape_text(b, (slice){ l.p, l.n });
	sb_addc(b, '\n');
	sb_free(&l);
}

static void summary_text(strbuf *b, const model *m, bool color)
{
	jobinfo j;
	model_jobinfo(m, &j);
	put(b, color, C_BOLD);
	sb_adds(b, "job:");
	put(b, color, C_RESET);
	if (j.nranks)
		sb_printf(b, " %d of %d ranks seen", j.ranks_seen, j.nranks);
	else
		sb_adds(b, " communicator size unknown");
	sb_printf(b, ", %zu host%s", j.hosts.n, j.hosts.n == 1 ? "" : "s");
	if (j.versions.n) {
		sb_adds(b, ", NCCL ");
		for (size_t i = 0; i < j.versions.n; i++) {
			if (i)
				sb_adds(b, " / ");
			escape_text(b, slice_from(intern_str(&m->str, j.versions.v[i])));
		}
	}
	if (j.driver)
		sb_printf(b, ", CUDA driver %ld.%ld", j.driver / 1000, (j.driver % 1000) / 10);
	sb_addc(b, '\n');
	if (m->ncomms > 1) {
		sb_printf(b, "  communicators: %zu (", m->ncomms);
		for (size_t i = 0; i < m->ncomms && i < 8; i++)
			sb_printf(b, "%s%d", i ? ", " : "", m->comms[i].nranks);
		sb_adds(b, m->ncomms > 8 ? ", ... ranks)\n" : " ranks)\n");
	}
	hostrow *rows;
	size_t n = report_hosts(m, &rows);
	for (size_t i = 0; i < n && i < 64; i++) {
		hostrow *h = &rows[i];
		strbuf line = { 0 };
		sb_printf(&line, "  %-16s", intern_str(&m->str, h->host));
		strbuf r = { 0 };
		if (h->ranks.n) {
			sb_adds(&r, h->ranks.n == 1 ? "rank " : "ranks ");
			ranges_format(&r, h->ranks.v, h->ranks.n);
		}
		sb_printf(&line, " %-12s", r.p ? r.p : "");
		if (h->boot_name >= 0)
			sb_printf(&line, " iface %s %s", intern_str(&m->str, h->boot_name), intern_str(&m->str, h->boot_addr));
		if (h->net >= 0)
			sb_printf(&line, "  net %s", intern_str(&m->str, h->net));
		sb_printf(&line, "  phase %s", phase_name(h->min_phase));
		if (h->max_phase != h->min_phase)
			sb_printf(&line, "..%s", phase_name(h->max_phase));
		escape_text(b, (slice){ line.p, line.n });
		sb_addc(b, '\n');
		sb_free(&line);
		sb_free(&r);
	}
	if (n > 64)
		sb_printf(b, "  ... %zu more hosts\n", n - 64);
	report_hosts_free(rows, n);
	hostlink *links;
	size_t nl = model_hostlinks(m, &links);
	for (size_t i = 0; i < nl && i < 16; i++) {
		strbuf l = { 0 };
		if (links[i].a == links[i].b)
			sb_printf(&l, "  within %s: ", intern_str(&m->str, links[i].a));
		else
			sb_printf(&l, "  %s <-> %s: ", intern_str(&m->str, links[i].a), intern_str(&m->str, links[i].b));
		transport_str(links[i].via, &l);
		escape_text(b, (slice){ l.p, l.n });
		sb_addc(b, '\n');
		sb_free(&l);
	}
	free(links);
	env_summary(b, m);
	int ff = model_first_failure(m);
	if (ff >= 0) {
		intset one = { 0 };
		intset_add(&one, ff);
		strbuf d = { 0 };
		model_describe(m, &one, &d);
		const evref *e = &m->procs[ff].ev_warn;
		sb_adds(b, "first failure: ");
		escape_text(b, (slice){ d.p ? d.p : "", d.n });
		sb_adds(b, " (");
		escape_text(b, slice_from(m->in[e->file].name));
		sb_printf(b, ":%llu)\n", (unsigned long long)e->line);
		sb_free(&d);
		intset_free(&one);
	}
	size_t cnt[3] = { 0 };
	for (size_t i = 0; i < m->fs.n; i++)
		cnt[m->fs.v[i].severity]++;
	sb_printf(b, "%zu error%s, %zu warning%s, %zu info\n", cnt[SEV_ERROR], cnt[SEV_ERROR] == 1 ? "" : "s",
		  cnt[SEV_WARNING], cnt[SEV_WARNING] == 1 ? "" : "s", cnt[SEV_INFO]);
	jobinfo_free(&j);
}

void report_finding_text(strbuf *b, const model *m, const finding *f, bool color)
{
	finding_text(b, m, &m->fs, f, color);
}

void report_summary_text(strbuf *b, const model *m, bool color)
{
	summary_text(b, m, color);
}

int report_text(FILE *out, const model *m, const report_opts *o)
{
	strbuf b = { 0 };
	if (!o->no_job)
		verdict_text(&b, m, o->color);
	for (size_t i = 0; i < m->fs.n; i++) {
		const finding *f = &m->fs.v[i];
		if (o->verbose || f->root == (int)i || f->root < 0) {
			finding_text(&b, m, &m->fs, f, o->color);
			if (!o->verbose && f->nconseq) {
				sb_printf(&b, "  consequences (%d):\n", f->nconseq);
				for (size_t k = i + 1; k < m->fs.n && m->fs.v[k].root == (int)i; k++)
					consequence_line(&b, m, &m->fs.v[k], o->color);
			}
			sb_addc(&b, '\n');
		}
	}
	if (!o->no_job)
		summary_text(&b, m, o->color);
	size_t w = b.n ? fwrite(b.p, 1, b.n, out) : 0;
	int rc = w == b.n ? 0 : -1;
	sb_free(&b);
	return rc;
}
