/* The job summary of the HTML report: the job's facts, then its hosts,
 * transports and NCCL settings as tables whose alike rows fold into one. */
#include "html.h"

#include <stdlib.h>
#include <string.h>

#include "hostlist.h"

/* Tables are cut here, with a count of what was left out. */
#define HTML_MAX_HOSTROWS 32
#define HTML_MAX_ENV 64
#define HTML_MAX_LINKS 16
#define HTML_MAX_INPUTS 8

static void esc(strbuf *b, const char *s)
{
	html_escape_str(b, s, true);
}

static void hosts_html(strbuf *b, const model *m)
{
	hostgroups hg;
	report_hostgroups(m, &hg);
	size_t n = hg.nrows, ng = hg.n;
	if (!n) {
		report_hostgroups_free(&hg);
		return;
	}
	const hostgroup *g = hg.v;
	sb_printf(b, "<h4>Hosts</h4>\n");
	strbuf alike = { 0 };
	if (report_hosts_alike(&alike, m, &hg)) {
		sb_adds(b, "<p>");
		html_escape(b, (slice){ alike.p, alike.n }, true);
		sb_adds(b, "</p>\n");
	}
	sb_free(&alike);
	sb_adds(b, "<table class=\"hosts\">\n<thead><tr><th>hosts</th><th>ranks</th><th>interface</th><th>net</th>"
		   "<th>phase</th></tr></thead>\n<tbody>\n");
	for (size_t k = 0; k < ng && k < HTML_MAX_HOSTROWS; k++) {
		const hostrow *h = g[k].row;
		strbuf t = { 0 };
		hostlist_format(&t, m, g[k].hosts.v, g[k].hosts.n, 8);
		sb_adds(b, "<tr><td class=\"hostname\" title=\"");
		html_escape(b, (slice){ t.p, t.n }, false);
		sb_adds(b, "\">");
		html_escape(b, (slice){ t.p, t.n }, true);
		if (g[k].hosts.n > 1)
			sb_printf(b, " (%zu)", g[k].hosts.n);
		sb_adds(b, "</td><td>");
		sb_clear(&t);
		hostlist_ranges(&t, g[k].ranks.v, g[k].ranks.n, 16);
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
	report_hostgroups_free(&hg);
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
	rowkey *kv = xcalloc(nl, sizeof *kv);
	size_t *grp = xcalloc(nl, sizeof *grp);
	for (size_t i = 0; i < nl; i++)
		kv[i] = (rowkey){ { (int)links[i].via, links[i].a == links[i].b, 0, 0, 0 }, i };
	size_t rows = report_group(kv, nl, grp);
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
	rowkey *kv = xcalloc(m->nenv, sizeof *kv);
	size_t *grp = xcalloc(m->nenv, sizeof *grp);
	for (size_t i = 0; i < m->nenv; i++)
		kv[i] = (rowkey){ { m->env[i].var, m->env[i].val, 0, 0, 0 }, i };
	size_t rows = report_group(kv, m->nenv, grp);
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
		hostlist_format(&t, m, hosts[k].v, hosts[k].n, 6);
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

void html_job(strbuf *b, const model *m)
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
