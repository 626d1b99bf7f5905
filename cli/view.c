/* ncclog view: the per-rank timeline over finished logs. The logs go
 * through the same pipeline and checks as analyze; the TUI only draws. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "../ingest/parallel.h"
#include "../ingest/setup.h"
#include "../model/causes.h"
#include "../tui/keys.h"
#include "../tui/load.h"
#include "../tui/panes.h"
#include "../tui/view.h"
#include "commands.h"

enum { O_JOBS };
static const cli_opt opts[] = {
	[O_JOBS] = { "jobs", 'j', "N", "read files on N threads (default: the processors online)" },
	{ NULL, 0, NULL, NULL },
};

const cli_cmd view_cmd = {
	.name = "view",
	.synopsis = "[OPTIONS] [FILE...]",
	.about = "Shows every rank of the job as a row on one screen, grouped by host: how far each got,\n"
		 "where each stopped, with the findings of analyze and the raw lines behind them.\n"
		 "FILE \"-\" or none: standard input (kept in a temporary spool to be read back). Logs may\n"
		 "be compressed; PyTorch Flight Recorder dumps may come beside them, in any order.\n",
	.common = COMMON_COLOR | COMMON_RULES,
	.opts = opts,
	.epilog = "keys: j/k move, Tab pane, Enter open, / regex search of every raw line, n/N next match,\n"
		  "Left/Right scroll, \\ filter (hosts, ranks, severity), e/w errors/warnings, ? help, q quit\n"
		  "The screen needs 40x12 at least; 80x24 and up shows the whole legend.\n"
		  "exit status: 0, or 2 for bad usage, unreadable input or no terminal\n",
	.operands = "FILE",
};

typedef struct progress {
	term *t;
	struct timespec start, last;
	bool shown;
} progress;

static double since(const struct timespec *a, const struct timespec *b)
{
	return (double)(b->tv_sec - a->tv_sec) + (double)(b->tv_nsec - a->tv_nsec) / 1e9;
}

/* Small inputs load before anyone could read a bar: it appears only once
 * loading takes longer than a blink, then at most ten times a second. */
static bool on_progress(void *ctx, uint64_t done, uint64_t total, const char *name)
{
	progress *p = ctx;
	if (term_interrupted())
		return false;
	struct timespec now;
	clock_gettime(CLOCK_MONOTONIC, &now);
	if (since(&p->start, &now) < 0.2 || (p->shown && since(&p->last, &now) < 0.1))
		return true;
	p->shown = true;
	p->last = now;
	panes_progress(p->t, done, total, name);
	return true;
}

static int view_run(const cli_args *ca, int jobs);

static int on_opt(void *ctx, int opt, const char *value)
{
	return opt == O_JOBS ? cli_jobs_parse(&view_cmd, value, ctx) : 0;
}

int cmd_view(int argc, char **argv)
{
	cli_args ca;
	int jobs = parallel_cpus();
	int rc = cli_parse(&view_cmd, argc, argv, on_opt, &jobs, &ca);
	if (rc) {
		cli_args_free(&ca);
		return rc == 1 ? 0 : 2;
	}
	int status = view_run(&ca, jobs);
	cli_args_free(&ca);
	return status;
}

/* The viewer over the parsed command line; returns the exit status. */
static int view_run(const cli_args *ca, int jobs)
{
	enum color_mode cm = ca->color;
	char **extra = ca->rules;
	size_t nextra = ca->nrules;
	int nfiles = (int)ca->noperands;
	char **paths = ca->operands;
	static char *dash[] = { "-" };
	if (nfiles == 0) {
		if (isatty(STDIN_FILENO)) {
			cli_usage_error(&view_cmd, "no FILE, and standard input is a terminal (name files, or pipe a log in)");
			return 2;
		}
		paths = dash;
		nfiles = 1;
	}
	int nstdin = 0;
	for (int i = 0; i < nfiles; i++)
		nstdin += strcmp(paths[i], "-") == 0;
	if (nstdin > 1) {
		cli_usage_error(&view_cmd, "standard input (-) named %d times", nstdin);
		return 2;
	}
	/* unreadable inputs are reported before the screen is taken over */
	strbuf loaderr = { 0 };
	char **good = xcalloc((size_t)nfiles, sizeof *good);
	int ngood = 0;
	for (int i = 0; i < nfiles; i++)
		if (load_check(paths[i], &loaderr) == 0)
			good[ngood++] = paths[i];
	if (ngood == 0) {
		for (const char *l = loaderr.p; l && *l;) {
			size_t n = strcspn(l, "\n");
			cli_error("%.*s", (int)n, l);
			l += n + (l[n] == '\n');
		}
		sb_free(&loaderr);
		free(good);
		return 2;
	}
	setup s;
	strbuf err = { 0 };
	if (setup_load_or_report(&s, extra, nextra) != 0) {
		sb_free(&loaderr);
		free(good);
		return 2;
	}
	/* colour is decided on the terminal the viewer draws on */
	bool color = cm == COLOR_ALWAYS || (cm == COLOR_AUTO && !(getenv("NO_COLOR") && *getenv("NO_COLOR")));
	term t;
	if (term_open(&t, color, &err) != 0) {
		cli_error("view: %s", err.p);
		sb_free(&err);
		sb_free(&loaderr);
		setup_free(&s);
		free(good);
		return 2;
	}
	model m;
	model_init(&m, &s.cat);
	lineidx *idx = xcalloc((size_t)ngood, sizeof *idx);
	progress pr = { .t = &t };
	clock_gettime(CLOCK_MONOTONIC, &pr.start);
	strbuf notes = { 0 };
	int nread = load_files(&m, &s.rs, good, (size_t)ngood, jobs, idx, on_progress, &pr, &loaderr, &notes);
	int status = loaderr.n ? 2 : 0;
	if (nread > 0) {
		model_check(&m);
		model_order(&m);
		view v;
		view_init(&v, &m, &t, idx);
		if (loaderr.n)
			view_status(&v, "not read: %.*s", (int)strcspn(loaderr.p, "\n"), loaderr.p);
		else if (notes.n)
			view_status(&v, "%.*s", (int)strcspn(notes.p, "\n"), notes.p);
		int rc = keys_run(&v);
		if (rc > 0)
			status = 130; /* interrupted: the shell's convention for SIGINT */
		else if (rc < 0)
			status = 2;
		view_free(&v);
	}
	term_close(&t);
	for (const char *l = loaderr.p; l && *l;) {
		size_t n = strcspn(l, "\n");
		cli_error("%.*s", (int)n, l);
		l += n + (l[n] == '\n');
	}
	if (nread == 0)
		cli_error("view: none of the inputs could be read");
	if (nread < 0)
		status = 130;
	if (nread > 0 && status == 2 && !loaderr.n)
		cli_error("view: the terminal failed or went away");
	if (s.rs.notes.n)
		fprintf(stderr, "ncclog: %s", s.rs.notes.p);
	for (const char *l = notes.p; l && *l;) {
		size_t n = strcspn(l, "\n");
		fprintf(stderr, "ncclog: %.*s\n", (int)n, l);
		l += n + (l[n] == '\n');
	}
	sb_free(&notes);
	for (size_t i = 0; i < m.nin; i++)
		lineidx_free(&idx[i]);
	free(idx);
	model_free(&m);
	setup_free(&s);
	sb_free(&err);
	sb_free(&loaderr);
	free(good);
	return nread == 0 ? 2 : status;
}
