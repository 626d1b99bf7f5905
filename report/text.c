/* Compiler-style text: "file:line: severity[id]: message", the evidence,
 * "help:", then a short job summary. */
#include "report.h"

#include <stdlib.h>
#include <string.h>

#include "../util/escape.h"
#include "hostlist.h"

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
/* Up to this many hosts the summary has a line per host (with its
 * address) and per link; above, alike hosts and links fold into one. */
#define DETAIL_HOSTS 8
#define MAX_GROUPS 8
#define MAX_LINKS 16
#define MAX_ENV 16

/* The NCCL settings, one entry per (variable, value) with where it was set
 * when not everywhere. */
static void env_summary(strbuf *b, const model *m, size_t nhosts)
{
	if (!m->nenv)
		return;
	rowkey *kv = xcalloc(m->nenv, sizeof *kv);
	size_t *grp = xcalloc(m->nenv, sizeof *grp);
	for (size_t i = 0; i < m->nenv; i++)
		kv[i] = (rowkey){ { m->env[i].var, m->env[i].val, 0, 0, 0 }, i };
	size_t ng = report_group(kv, m->nenv, grp);
	intset *hosts = xcalloc(ng, sizeof *hosts);
	size_t *first = xcalloc(ng, sizeof *first);
	for (size_t i = m->nenv; i-- > 0;) {
		first[grp[i]] = i;
		int host = m->procs[m->env[i].proc].host;
		if (host >= 0)
			intset_add(&hosts[grp[i]], host);
	}
	strbuf l = { 0 };
	sb_adds(&l, "  env:");
	for (size_t g = 0; g < ng && g < MAX_ENV; g++) {
		const envset *e = &m->env[first[g]];
		sb_printf(&l, " %s=%s", intern_str(&m->str, e->var), intern_str(&m->str, e->val));
		if (hosts[g].n && (hosts[g].n < nhosts || nhosts == 1)) {
			sb_addc(&l, '(');
			hostlist_format(&l, m, hosts[g].v, hosts[g].n, 2);
			sb_addc(&l, ')');
		}
	}
	if (ng > MAX_ENV)
		sb_printf(&l, " ... %zu more", ng - MAX_ENV);
	escape_text(b, (slice){ l.p, l.n });
	sb_addc(b, '\n');
	sb_free(&l);
	for (size_t g = 0; g < ng; g++)
		intset_free(&hosts[g]);
	free(hosts);
	free(first);
	free(kv);
	free(grp);
}

static void host_facts(strbuf *l, const model *m, const hostrow *h, bool addr)
{
	if (h->boot_name >= 0) {
		sb_printf(l, "iface %s", intern_str(&m->str, h->boot_name));
		if (addr && h->boot_addr >= 0)
			sb_printf(l, " %s", intern_str(&m->str, h->boot_addr));
		sb_adds(l, "  ");
	}
	if (h->net >= 0)
		sb_printf(l, "net %s  ", intern_str(&m->str, h->net));
	sb_printf(l, "phase %s", phase_name(h->min_phase));
	if (h->max_phase != h->min_phase)
		sb_printf(l, "..%s", phase_name(h->max_phase));
}

static void put_line(strbuf *b, strbuf *l)
{
	escape_text(b, (slice){ l->p, l->n });
	sb_addc(b, '\n');
	sb_clear(l);
}

/* A line per host, its columns as wide as the widest name (to a limit: a
 * longer name has a line of its own, so that the columns stay aligned),
 * with no rank column when no host's ranks are known. */
#define NAME_COLUMN_MAX 40
static void hosts_detail(strbuf *b, const model *m, const hostgroups *g)
{
	int wname = 8, wranks = 0;
	strbuf l = { 0 }, r = { 0 };
	for (size_t i = 0; i < g->nrows; i++) {
		int n = (int)strlen(intern_str(&m->str, g->rows[i].host));
		if (n > wname && n <= NAME_COLUMN_MAX)
			wname = n;
		if (!g->rows[i].ranks.n)
			continue;
		sb_clear(&r);
		ranges_format(&r, g->rows[i].ranks.v, g->rows[i].ranks.n);
		wranks = (int)r.n + 6 > wranks ? (int)r.n + 6 : wranks;
	}
	for (size_t i = 0; i < g->nrows; i++) {
		const hostrow *h = &g->rows[i];
		const char *name = intern_str(&m->str, h->host);
		if ((int)strlen(name) > wname) {
			sb_printf(&l, "  %s", name);
			put_line(b, &l);
			name = "";
		}
		sb_printf(&l, "  %-*s  ", wname, name);
		sb_clear(&r);
		if (h->ranks.n) {
			sb_adds(&r, h->ranks.n == 1 ? "rank " : "ranks ");
			ranges_format(&r, h->ranks.v, h->ranks.n);
		}
		if (wranks)
			sb_printf(&l, "%-*s  ", wranks, r.p ? r.p : "");
		host_facts(&l, m, h, true);
		put_line(b, &l);
	}
	sb_free(&l);
	sb_free(&r);
}

/* Alike hosts as one line each: "gpu-[0000-0062] (63 hosts): ...". */
static void hosts_folded(strbuf *b, const model *m, const hostgroups *g)
{
	strbuf l = { 0 };
	sb_adds(&l, "  ");
	if (report_hosts_alike(&l, m, g))
		put_line(b, &l);
	sb_clear(&l);
	for (size_t k = 0; k < g->n && k < MAX_GROUPS; k++) {
		const hostgroup *h = &g->v[k];
		sb_adds(&l, "  ");
		hostlist_format(&l, m, h->hosts.v, h->hosts.n, 4);
		if (h->hosts.n > 1)
			sb_printf(&l, " (%zu hosts)", h->hosts.n);
		sb_adds(&l, ": ");
		if (h->ranks.n) {
			sb_adds(&l, h->ranks.n == 1 ? "rank " : "ranks ");
			hostlist_ranges(&l, h->ranks.v, h->ranks.n, 8);
			if (h->hosts.n > 1 && h->per_host)
				sb_printf(&l, " (%zu per host)", h->per_host);
			sb_adds(&l, "  ");
		}
		host_facts(&l, m, h->row, h->hosts.n == 1);
		put_line(b, &l);
	}
	if (g->n > MAX_GROUPS)
		sb_printf(b, "  ... %zu more kinds of host\n", g->n - MAX_GROUPS);
	sb_free(&l);
}

/* The transports between hosts: each link, or alike links folded. */
static void links_summary(strbuf *b, const model *m, size_t nhosts)
{
	hostlink *links;
	size_t nl = model_hostlinks(m, &links);
	strbuf l = { 0 };
	if (nhosts <= DETAIL_HOSTS) {
		for (size_t i = 0; i < nl && i < MAX_LINKS; i++) {
			if (links[i].a == links[i].b)
				sb_printf(&l, "  within %s: ", intern_str(&m->str, links[i].a));
			else
				sb_printf(&l, "  %s <-> %s: ", intern_str(&m->str, links[i].a), intern_str(&m->str, links[i].b));
			transport_str(links[i].via, &l);
			put_line(b, &l);
		}
		if (nl > MAX_LINKS)
			sb_printf(b, "  ... %zu more links\n", nl - MAX_LINKS);
	} else {
		rowkey *kv = xcalloc(nl ? nl : 1, sizeof *kv);
		size_t *grp = xcalloc(nl ? nl : 1, sizeof *grp);
		for (size_t i = 0; i < nl; i++)
			kv[i] = (rowkey){ { links[i].a != links[i].b, (int)links[i].via, 0, 0, 0 }, i };
		size_t ng = report_group(kv, nl, grp);
		for (size_t g = 0; g < ng && g < MAX_LINKS; g++) {
			size_t n = 0, first = 0;
			for (size_t i = nl; i-- > 0;)
				if (grp[i] == g) {
					n++;
					first = i;
				}
			const hostlink *k = &links[first];
			if (k->a == k->b)
				sb_printf(&l, n == nhosts ? "  within each of %zu hosts: " : "  within %zu hosts: ", n);
			else
				sb_printf(&l, "  between %zu host pair%s (%s <-> %s, ...): ", n, n == 1 ? "" : "s",
					  intern_str(&m->str, k->a), intern_str(&m->str, k->b));
			transport_str(k->via, &l);
			put_line(b, &l);
		}
		if (ng > MAX_LINKS)
			sb_printf(b, "  ... %zu more kinds of link\n", ng - MAX_LINKS);
		free(kv);
		free(grp);
	}
	sb_free(&l);
	free(links);
}

static void job_text(strbuf *b, const model *m, bool color)
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
	if (j.hosts.n)
		sb_printf(b, ", %zu host%s", j.hosts.n, j.hosts.n == 1 ? "" : "s");
	else
		sb_adds(b, ", no host named");
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
		sb_printf(b, "  communicators: %zu (of ", m->ncomms);
		for (size_t i = 0; i < m->ncomms && i < 8; i++)
			sb_printf(b, "%s%d", i ? ", " : "", m->comms[i].nranks);
		if (m->ncomms > 8)
			sb_printf(b, " and %zu more", m->ncomms - 8);
		sb_adds(b, " ranks)\n");
	}
	hostgroups hg;
	report_hostgroups(m, &hg);
	if (hg.nrows <= DETAIL_HOSTS)
		hosts_detail(b, m, &hg);
	else
		hosts_folded(b, m, &hg);
	size_t nhosts = hg.nrows;
	report_hostgroups_free(&hg);
	links_summary(b, m, nhosts);
	env_summary(b, m, nhosts);
	int ff = model_first_failure(m);
	if (ff >= 0) {
		intset one = { 0 };
		intset_add(&one, ff);
		strbuf d = { 0 };
		model_describe(m, &one, &d);
		const evref *e = &m->procs[ff].ev_warn;
		sb_adds(b, "first failure: ");
		if (d.n) {
			escape_text(b, (slice){ d.p, d.n });
			sb_adds(b, " (");
		} else {
			sb_adds(b, "at ");
		}
		escape_text(b, slice_from(m->in[e->file].name));
		sb_printf(b, ":%llu%s\n", (unsigned long long)e->line, d.n ? ")" : "");
		sb_free(&d);
		intset_free(&one);
	}
	jobinfo_free(&j);
}

/* "2 errors, 1 warning, 0 info", and how many the filters showed. */
static void totals_text(strbuf *b, const model *m, const report_opts *o)
{
	size_t cnt[3] = { 0 }, shown = 0;
	for (size_t i = 0; i < m->fs.n; i++) {
		cnt[m->fs.v[i].severity]++;
		shown += !o || report_shows(o, &m->fs.v[i]);
	}
	sb_printf(b, "%zu error%s, %zu warning%s, %zu info", cnt[SEV_ERROR], cnt[SEV_ERROR] == 1 ? "" : "s",
		  cnt[SEV_WARNING], cnt[SEV_WARNING] == 1 ? "" : "s", cnt[SEV_INFO]);
	if (shown < m->fs.n)
		sb_printf(b, " (%zu shown)", shown);
	sb_addc(b, '\n');
}

void report_finding_text(strbuf *b, const model *m, const finding *f, bool color)
{
	finding_text(b, m, &m->fs, f, color);
}

void report_summary_text(strbuf *b, const model *m, bool color)
{
	job_text(b, m, color);
	totals_text(b, m, NULL);
}

int report_text(FILE *out, const model *m, const report_opts *o)
{
	strbuf b = { 0 };
	if (!o->no_job)
		verdict_text(&b, m, o->color);
	for (size_t i = 0; i < m->fs.n; i++) {
		const finding *f = &m->fs.v[i];
		if (!report_block(o, m, i))
			continue;
		finding_text(&b, m, &m->fs, f, o->color);
		if (!o->verbose && f->nconseq && f->root == (int)i) {
			size_t shown = 0;
			for (size_t k = i + 1; k < m->fs.n && m->fs.v[k].root == (int)i; k++)
				shown += report_shows(o, &m->fs.v[k]);
			if (shown)
				sb_printf(&b, "  consequences (%zu):\n", shown);
			else if (o->brief)
				sb_printf(&b, "  consequences: %d (left out by --brief)\n", f->nconseq);
			for (size_t k = i + 1; k < m->fs.n && m->fs.v[k].root == (int)i; k++)
				if (report_shows(o, &m->fs.v[k]))
					consequence_line(&b, m, &m->fs.v[k], o->color);
		}
		sb_addc(&b, '\n');
	}
	if (!o->no_job && !o->no_summary)
		job_text(&b, m, o->color);
	/* doctor's report (no job) ends on its totals too */
	totals_text(&b, m, o);
	size_t w = b.n ? fwrite(b.p, 1, b.n, out) : 0;
	int rc = w == b.n ? 0 : -1;
	sb_free(&b);
	return rc;
}
