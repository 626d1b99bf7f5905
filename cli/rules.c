/* ncclog rules list|test: what the loaded rules are, and whether each one
 * matches its own sample lines the way analyze would run it (in the style
 * of fail2ban's filter tests). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "../model/model.h"
#include "../parser/record.h"
#include "../util/escape.h"
#include "commands.h"
#include "../ingest/setup.h"

enum { O_QUIET };
static const cli_opt opts_table[] = {
	[O_QUIET] = { "quiet", 'q', NULL, "test: print failures and the total only" },
	{ NULL, 0, NULL, NULL },
};

static const char *const subcommands[] = { "list", "test", NULL };

const cli_cmd rules_cmd = {
	.name = "rules",
	.synopsis = "list [OPTIONS]\n       ncclog rules test [OPTIONS] [FILE...]",
	.about = "list: every loaded rule (shipped, then $XDG_CONFIG_HOME/ncclog/rules.d, then --rules):\n"
		 "      id, gate literals, what it emits, file:line.\n"
		 "test: runs every sample line of the rules in FILE (no FILE: the shipped and user\n"
		 "      rules) through the gate and the patterns, as analyze does, and reports which\n"
		 "      rule matched with which captures. A sample fails when its own rule does not\n"
		 "      match it; a rule fails when it has no sample. FILE may be one that loads\n"
		 "      anyway (under rules.d): its rules are loaded once, and tested.\n",
	.common = COMMON_COLOR | COMMON_RULES,
	.opts = opts_table,
	.epilog = "The keys of a rule file and the tags: rules/README.md, and ncclog(1).\n"
		  "exit status: 0 all samples pass, 1 a sample or rule failed, 2 bad usage or an\n"
		  "             invalid rule file\n",
	.subcommands = subcommands,
	.operands = "FILE",
};

typedef struct opts {
	bool quiet, color;
	char **extra;
	size_t nextra;
} opts;

static const char *paint(const opts *o, const char *code)
{
	return o->color ? code : "";
}

static void print_escaped(const char *s, size_t n)
{
	strbuf b = { 0 };
	escape_text(&b, (slice){ s, n });
	fputs(b.p ? b.p : "", stdout);
	sb_free(&b);
}

static void describe_emit(const ruleset *rs, const rule *r, strbuf *b)
{
	if (r->finding)
		sb_printf(b, "%s[%s]", severity_name(r->severity), r->finding);
	else if (r->tag >= 0)
		sb_printf(b, "tag %s", rs->tags[r->tag]);
	else
		sb_adds(b, "-");
}

static int rules_list(setup *s, const opts *o)
{
	for (size_t i = 0; i < s->rs.n; i++) {
		const rule *r = &s->rs.v[i];
		strbuf gates = { 0 }, emit = { 0 };
		for (size_t g = 0; g < r->ngates; g++)
			sb_printf(&gates, "%s\"%s\"", g ? " | " : "", r->gates[g]);
		describe_emit(&s->rs, r, &emit);
		printf("%s%-30s%s %-36s %s  %s%s%s\n", paint(o, "\033[1m"), r->id, paint(o, "\033[0m"), emit.p,
		       gates.p ? gates.p : "", paint(o, "\033[2m"), r->src, paint(o, "\033[0m"));
		sb_free(&gates);
		sb_free(&emit);
	}
	return 0;
}

/* The rules that fire on one sample, in load order, as analyze runs them. */
typedef struct hits {
	int ri[64];
	size_t n;
	bool own;           /* the sample's rule is among them */
	int own_ri;
	match own_m;
} hits;

static void on_hit(void *ctx, const match *m)
{
	hits *h = ctx;
	if (h->n < sizeof h->ri / sizeof h->ri[0])
		h->ri[h->n++] = m->ri;
	if (m->ri == h->own_ri && !h->own) {
		h->own = true;
		h->own_m = *m;
	}
}

static void run_sample(ruleset *rs, slice line, hits *h)
{
	size_t cands = ruleset_gate(rs, line);
	size_t off = 0;
	while (cands && off < line.n) {
		record r;
		size_t k = record_parse((slice){ line.p + off, line.n - off }, &r);
		if (r.body.n)
			ruleset_match(rs, r.body, r.site, r.level, on_hit, h);
		off += k ? k : line.n - off;
	}
}

static void print_captures(const match *m)
{
	for (int c = 0; c < m->ncaps; c++) {
		if (!m->caps[c].v.p)
			continue;
		printf(" %s=\"", m->caps[c].name);
		print_escaped(m->caps[c].v.p, m->caps[c].v.n);
		putchar('"');
	}
}

/* Whether file is dir, or lies under it. */
static bool file_under(const char *file, const char *dir)
{
	size_t n = strlen(dir);
	return strncmp(file, dir, n) == 0 && (file[n] == '\0' || file[n] == '/' || (n && dir[n - 1] == '/'));
}

/* Tests the rules whose file is under one of paths (all when npaths is 0). */
static int rules_test(setup *s, const opts *o, char **paths, size_t npaths)
{
	size_t nrules = 0, nsamples = 0, bad = 0;
	const char *ok = paint(o, "\033[32m"), *fail = paint(o, "\033[1;31m"), *off = paint(o, "\033[0m");
	/* the files under test by their real paths, as the set keeps them */
	char **real = xcalloc(npaths + 1, sizeof *real);
	for (size_t p = 0; p < npaths; p++)
		if (!(real[p] = realpath(paths[p], NULL)))
			real[p] = xstrdup(paths[p]);
	for (size_t i = 0; i < s->rs.n; i++) {
		const rule *r = &s->rs.v[i];
		bool mine = npaths == 0;
		for (size_t p = 0; p < npaths && !mine; p++)
			mine = file_under(s->rs.files[r->file], real[p]);
		if (!mine)
			continue;
		nrules++;
		if (!o->quiet || !r->nsamples)
			printf("%s (%s)\n", r->id, r->src);
		if (!r->nsamples) {
			printf("  %sFAIL%s the rule has no \"samples\": add log lines it must match\n", fail, off);
			bad++;
			continue;
		}
		for (size_t k = 0; k < r->nsamples; k++) {
			nsamples++;
			slice line = slice_from(r->samples[k]);
			hits h = { .own_ri = (int)i };
			run_sample(&s->rs, line, &h);
			if (h.own && !o->quiet) {
				printf("  %sok%s   ", ok, off);
				print_escaped(line.p, line.n);
				printf("\n       %s:", r->id);
				print_captures(&h.own_m);
				putchar('\n');
			} else if (!h.own) {
				bad++;
				if (o->quiet)
					printf("%s (%s)\n", r->id, r->src);
				printf("  %sFAIL%s ", fail, off);
				print_escaped(line.p, line.n);
				if (!h.n)
					printf("\n       matched by no rule (check the gate literals and the pattern)\n");
				else
					printf("\n       not matched by %s; matched by %s\n", r->id, s->rs.v[h.ri[0]].id);
			}
			/* every rule that fires reports: another one matching too is worth seeing */
			if (!o->quiet)
				for (size_t j = 0; j < h.n; j++)
					if (h.ri[j] != (int)i)
						printf("       also %s (%s)\n", s->rs.v[h.ri[j]].id, s->rs.v[h.ri[j]].src);
		}
	}
	for (size_t p = 0; p < npaths; p++)
		free(real[p]);
	free(real);
	if (npaths && !nrules) {
		cli_error("rules test: no rule loaded from %s", paths[0]);
		return 2;
	}
	printf("%zu rules, %zu samples: %s%zu failed%s\n", nrules, nsamples, bad ? fail : ok, bad, off);
	return bad ? 1 : 0;
}

static int on_opt(void *ctx, int opt, const char *value)
{
	(void)value;
	if (opt == O_QUIET)
		((opts *)ctx)->quiet = true;
	return 0;
}

int cmd_rules(int argc, char **argv)
{
	opts o = { 0 };
	cli_args ca;
	int rc = cli_parse(&rules_cmd, argc, argv, on_opt, &o, &ca);
	if (rc) {
		cli_args_free(&ca);
		return rc == 1 ? 0 : 2;
	}
	bool list = ca.sub == 0;
	char **files = ca.operands;
	size_t nfiles = ca.noperands;
	if (list && nfiles) {
		cli_usage_error(&rules_cmd, "list takes no FILE (use --rules PATH)");
		cli_args_free(&ca);
		return 2;
	}
	/* the files under test load last, like --rules, after all the others */
	o.extra = xcalloc(ca.nrules + nfiles + 1, sizeof *o.extra);
	for (size_t i = 0; i < ca.nrules; i++)
		o.extra[o.nextra++] = ca.rules[i];
	for (size_t i = 0; i < nfiles; i++)
		o.extra[o.nextra++] = files[i];
	o.color = color_enabled(ca.color, STDOUT_FILENO);
	setup s;
	strbuf err = { 0 };
	if (setup_load(&s, o.extra, o.nextra, &err) != 0) {
		cli_error("%s", err.p);
		rc = 2;
	} else {
		rc = list ? rules_list(&s, &o) : rules_test(&s, &o, files, nfiles);
	}
	setup_free(&s);
	sb_free(&err);
	free(o.extra);
	cli_args_free(&ca);
	return rc;
}
