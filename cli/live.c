/* ncclog live: diagnose a job while its logs arrive. The same pipeline and
 * checks as analyze run as bytes come in; each finding is printed the
 * moment it fires (and again when it widens), and at the end of input the
 * exit status is analyze's. */
#include <cjson/cJSON.h>
#include <errno.h>
#include <poll.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "../model/causes.h"
#include "../tui/keys.h"
#include "../util/escape.h"
#include "hook.h"
#include "../tui/view.h"
#include "commands.h"
#include "../ingest/follow.h"
#include "../ingest/setup.h"

#include "version.h"

enum { O_FOLLOW, O_SETTLE, O_EXEC, O_EXEC_TIMEOUT, O_NO_TUI };
static const cli_opt opts[] = {
	[O_FOLLOW] = { "follow", 'F', NULL, "follow the files like tail -F (growth, truncation, rotation, files "
					     "that appear later) instead of reading them to their end; each "
					     "truncation or rotation is announced, and the lines after it are cited "
					     "as \"FILE (generation N)\"" },
	[O_SETTLE] = { "settle", 0, "SECS", "quiet time after which a missing, stuck or silent rank counts (default 10)" },
	[O_EXEC] = { "exec", 0, "CMD", "run CMD once per new error finding, the finding as JSON on its standard "
				       "input and its id in NCCLOG_FINDING_ID; CMD is split into words (quotes work, "
				       "nothing is expanded) and runs without a shell unless it names one. At most 4 "
				       "run at once; a failure is reported on stderr and changes nothing else" },
	[O_EXEC_TIMEOUT] = { "exec-timeout", 0, "SECS", "stop a run of CMD after SECS (default 30)" },
	[O_NO_TUI] = { "no-tui", 0, NULL, "print findings even on a terminal" },
	{ NULL, 0, NULL, NULL },
};

const cli_cmd live_cmd = {
	.name = "live",
	.synopsis = "[OPTIONS] [FILE...]",
	.about = "Diagnoses a running job from its logs as they arrive: standard input (tail -f train.log |\n"
		 "ncclog live) or files. Findings are printed the moment their evidence arrives; on a\n"
		 "terminal the viewer shows them, and the report is printed when it quits (q or Ctrl-C).\n"
		 "--format json prints one object per line, then an \"end\" event with the totals and\n"
		 "the exit status.\n",
	.common = COMMON_FORMAT | COMMON_COLOR | COMMON_RULES,
	.opts = opts,
	.epilog = "exit status at the end of input: as analyze; 130 on SIGINT\n",
	.formats = 1u << FMT_TEXT | 1u << FMT_JSON,
	.operands = "FILE",
};

/* The one global: set by the signal handler, read by the loop. */
static volatile sig_atomic_t interrupted;

static void on_signal(int sig)
{
	interrupted = sig;
}

static double wall(void)
{
	struct timespec t;
	clock_gettime(CLOCK_REALTIME, &t);
	return (double)t.tv_sec + (double)t.tv_nsec / 1e9;
}

/* What has been printed of each finding, to print news only. */
typedef struct shown {
	char *id, *key;
	size_t nprocs;
	enum severity sev;
	bool fired;            /* --exec ran for it */
} shown;

typedef struct printer {
	shown *v;
	size_t n, cap;
	bool json, color;
	FILE *out;             /* NULL: only keep track (the viewer shows them) */
	hooks *hk;             /* --exec, or NULL */
	strbuf hookerr;        /* its failures, not yet said */
} printer;

static shown *shown_find(printer *pr, const finding *f)
{
	for (size_t i = 0; i < pr->n; i++)
		if (strcmp(pr->v[i].id, f->id) == 0 && strcmp(pr->v[i].key, f->key) == 0)
			return &pr->v[i];
	return NULL;
}

static void print_event(printer *pr, const model *m, const finding *f, const char *event)
{
	if (!pr->out)
		return;
	if (pr->json) {
		cJSON *o = report_finding_json(m, f);
		cJSON_AddStringToObject(o, "event", event);
		char *t = cJSON_PrintUnformatted(o);
		fprintf(pr->out, "%s\n", t);
		free(t);
		cJSON_Delete(o);
	} else {
		strbuf b = { 0 };
		if (strcmp(event, "update") == 0)
			sb_adds(&b, "update: ");
		report_finding_text(&b, m, f, pr->color);
		fwrite(b.p, 1, b.n, pr->out);
		fputc('\n', pr->out);
		sb_free(&b);
	}
}

/* --exec: once per finding, when it is (or becomes) an error. */
static void fire(printer *pr, const model *m, const finding *f, shown *s)
{
	if (!pr->hk || s->fired || f->severity != SEV_ERROR)
		return;
	s->fired = true;
	cJSON *o = report_finding_json(m, f);
	cJSON_AddStringToObject(o, "event", "finding");
	char *t = cJSON_PrintUnformatted(o);
	strbuf what = { 0 };
	sb_printf(&what, "%s[%s]", severity_name(f->severity), f->id);
	hooks_fire(pr->hk, f->id, what.p, t);
	sb_free(&what);
	free(t);
	cJSON_Delete(o);
}

/* Prints the findings that are new or grew since the last call. */
static void print_news(printer *pr, const model *m)
{
	for (size_t i = 0; i < m->fs.n; i++) {
		const finding *f = &m->fs.v[i];
		shown *s = shown_find(pr, f);
		if (!s) {
			grow(&pr->v, &pr->cap, pr->n, sizeof *pr->v);
			s = &pr->v[pr->n++];
			*s = (shown){ xstrdup(f->id), xstrdup(f->key), f->procs.n, f->severity, false };
			print_event(pr, m, f, "finding");
		} else if (f->procs.n > s->nprocs || f->severity > s->sev) {
			s->nprocs = f->procs.n;
			s->sev = f->severity;
			print_event(pr, m, f, "update");
		}
		fire(pr, m, f, s);
	}
	if (pr->hk)
		hooks_poll(pr->hk, &pr->hookerr);
	if (pr->out)
		fflush(pr->out);
}

/* Says what --exec reported, on stderr (never on the findings' stream). */
static void say_hook_errors(printer *pr)
{
	for (const char *l = pr->hookerr.p; l && *l;) {
		size_t n = strcspn(l, "\n");
		cli_error("%.*s", (int)n, l);
		l += n + (l[n] == '\n');
	}
	sb_clear(&pr->hookerr);
}

static void printer_free(printer *pr)
{
	for (size_t i = 0; i < pr->n; i++) {
		free(pr->v[i].id);
		free(pr->v[i].key);
	}
	free(pr->v);
	sb_free(&pr->hookerr);
}

/* A followed file was truncated, rotated or appeared: said as it happens,
 * with the name its new lines are cited by. */
static void notice_text(const model *m, const follow_notice *n, strbuf *b)
{
	const char *name = n->file >= 0 && (size_t)n->file < m->nin ? m->in[n->file].name : n->path;
	if (n->what == FOLLOW_TRUNCATED)
		sb_printf(b, "%s was truncated: reading it again from its start", n->path);
	else if (n->what == FOLLOW_ROTATED)
		sb_printf(b, "%s was rotated (replaced): reading the new file from its start", n->path);
	else
		sb_printf(b, "%s appeared: reading it", n->path);
	if (n->generation > 1)
		sb_printf(b, "; its lines are cited as \"%s\"", name);
}

static void print_notices(printer *pr, follower *fl, const model *m)
{
	size_t n;
	const follow_notice *v = follower_notices(fl, &n);
	for (size_t i = 0; i < n && pr->out; i++) {
		strbuf b = { 0 };
		notice_text(m, &v[i], &b);
		if (pr->json) {
			cJSON *o = cJSON_CreateObject();
			cJSON_AddStringToObject(o, "event", "notice");
			cJSON_AddStringToObject(o, "what", follow_what_name(v[i].what));
			strbuf e = { 0 };
			escape_utf8(&e, slice_from(v[i].path));
			cJSON_AddStringToObject(o, "file", e.p ? e.p : "");
			sb_clear(&e);
			escape_utf8(&e, slice_from(m->in[v[i].file].name));
			cJSON_AddStringToObject(o, "input", e.p ? e.p : "");
			sb_free(&e);
			cJSON_AddNumberToObject(o, "generation", v[i].generation);
			sb_clear(&e);
			escape_utf8(&e, (slice){ b.p, b.n });
			cJSON_AddStringToObject(o, "message", e.p ? e.p : "");
			sb_free(&e);
			char *t = cJSON_PrintUnformatted(o);
			fprintf(pr->out, "%s\n", t);
			free(t);
			cJSON_Delete(o);
		} else {
			strbuf e = { 0 };
			escape_text(&e, (slice){ b.p, b.n });
			fprintf(pr->out, "notice: %s\n\n", e.p);
			sb_free(&e);
		}
		sb_free(&b);
	}
	if (pr->out && n)
		fflush(pr->out);
}

/* The last line of JSON output: the totals and the exit status. */
static void print_end(printer *pr, const model *m, int status, bool interrupted_)
{
	size_t cnt[3] = { 0 };
	for (size_t i = 0; i < m->fs.n; i++)
		cnt[m->fs.v[i].severity]++;
	jobinfo j;
	model_jobinfo(m, &j);
	cJSON *o = cJSON_CreateObject();
	cJSON_AddStringToObject(o, "event", "end");
	cJSON_AddNumberToObject(o, "status", status);
	cJSON_AddBoolToObject(o, "interrupted", interrupted_);
	cJSON_AddNumberToObject(o, "findings", (double)m->fs.n);
	cJSON_AddNumberToObject(o, "errors", (double)cnt[SEV_ERROR]);
	cJSON_AddNumberToObject(o, "warnings", (double)cnt[SEV_WARNING]);
	cJSON_AddNumberToObject(o, "info", (double)cnt[SEV_INFO]);
	cJSON_AddNumberToObject(o, "nranks", j.nranks);
	cJSON_AddNumberToObject(o, "ranks_seen", j.ranks_seen);
	cJSON_AddNumberToObject(o, "hosts", (double)j.hosts.n);
	uint64_t lines = 0, bytes = 0;
	for (size_t i = 0; i < m->nin; i++) {
		lines += m->in[i].lines;
		bytes += m->in[i].bytes;
	}
	cJSON_AddNumberToObject(o, "inputs", (double)m->nin);
	cJSON_AddNumberToObject(o, "lines", (double)lines);
	cJSON_AddNumberToObject(o, "bytes", (double)bytes);
	if (pr->hk) {
		size_t run, failed, dropped;
		hooks_counts(pr->hk, &run, &failed, &dropped);
		cJSON *h = cJSON_AddObjectToObject(o, "exec");
		cJSON_AddNumberToObject(h, "run", (double)run);
		cJSON_AddNumberToObject(h, "failed", (double)failed);
		cJSON_AddNumberToObject(h, "dropped", (double)dropped);
	}
	char *t = cJSON_PrintUnformatted(o);
	fprintf(pr->out, "%s\n", t);
	free(t);
	cJSON_Delete(o);
	jobinfo_free(&j);
}

static int error_status(const model *m)
{
	for (size_t i = 0; i < m->fs.n; i++)
		if (m->fs.v[i].severity == SEV_ERROR)
			return 1;
	return 0;
}

/* Checks are cheap but not free: at most this often while data flows. */
#define CHECK_EVERY 0.1
#define FLUSH_AFTER 0.5

static int run_pipe(follower *fl, model *m, printer *pr, double settle)
{
	strbuf err = { 0 };
	double last_check = 0;
	bool dirty = false;
	int status = 0;
	while (!interrupted && !follower_ended(fl)) {
		int fd = follower_fd(fl);
		struct pollfd pf = { fd, POLLIN, 0 };
		/* with unchecked data, wake in time for the next check */
		double wait = dirty ? CHECK_EVERY - (wall() - last_check) : 0.25;
		int n = poll(&pf, fd >= 0 ? 1 : 0, wait > 0 ? (int)(wait * 1000) + 1 : 0);
		if (n < 0 && errno != EINTR)
			break;
		double now = wall();
		m->now = now;
		m->settle = settle;
		dirty |= follower_step(fl, now, FLUSH_AFTER, &err);
		print_notices(pr, fl, m);
		if (err.n) {
			fputs("ncclog: ", stderr);
			fputs(err.p, stderr);
			sb_clear(&err);
			status = 2;
		}
		/* new data, or time passing (a rank going silent) */
		if (now - last_check >= (dirty ? CHECK_EVERY : 1.0)) {
			model_check(m);
			print_news(pr, m);
			last_check = now;
			dirty = false;
		} else if (pr->hk) {
			hooks_poll(pr->hk, &pr->hookerr);
		}
		say_hook_errors(pr);
	}
	sb_free(&err);
	return status;
}

/* On a terminal: the viewer over the model as it grows. One poll() serves
 * the keys (from the terminal) and standard input; a tick reads followed
 * files, flushes partial lines and notices silence without data. */
typedef struct screen {
	follower *fl;
	model *m;
	printer *pr;           /* keeps track of findings for --exec; prints nothing */
	lineidx *idx;          /* one per input of the model */
	size_t nidx, idxcap;
	double last_check;
	long shown_sec;        /* the clocks' second on screen */
	bool dirty, ended;
	strbuf err;            /* read errors, printed once the screen is gone */
	strbuf hookerr;        /* --exec failures, printed then too */
} screen;

/* The file the follower reads input f from: its name says which
 * generation it is, the path is where it is read back. */
static const char *input_path(const screen *sc, int f)
{
	for (size_t i = 0; i < sc->fl->n; i++)
		if (sc->fl->v[i].open_pipeline && sc->fl->v[i].p.file == f)
			return sc->fl->v[i].path;
	/* a file read to its end at once: its first generation, named as is */
	const char *name = sc->m->in[f].name;
	return strcmp(name, "<stdin>") == 0 ? "-" : name;
}

/* One index per input the follower added; a later generation of a file
 * (truncated, rotated) makes the earlier one unreadable by offset. */
static void screen_inputs(view *v, screen *sc)
{
	const model *m = sc->m;
	for (size_t f = sc->nidx; f < m->nin; f++) {
		grow(&sc->idx, &sc->idxcap, sc->nidx, sizeof *sc->idx);
		lineidx *x = &sc->idx[sc->nidx++];
		const char *path = input_path(sc, (int)f);
		if (!path || strcmp(path, "-") == 0) {
			lineidx_init_none(x); /* a pipe: lines are not kept */
			continue;
		}
		for (size_t k = 0; k < f; k++)
			if (lineidx_kept(&sc->idx[k]) && sc->idx[k].path && strcmp(sc->idx[k].path, path) == 0) {
				lineidx_free(&sc->idx[k]);
				lineidx_init_none(&sc->idx[k]);
			}
		lineidx_init(x, path);
	}
	v->idx = sc->idx;
}

/* Reads what is there, for 50 ms at most so that keys stay responsive. */
static void screen_read(view *v, screen *sc)
{
	double start = wall();
	bool got;
	do {
		double now = wall();
		sc->m->now = now;
		got = follower_step(sc->fl, now, FLUSH_AFTER, &sc->err);
		sc->dirty |= got;
		/* a checkpoint, so that lines are found again without a scan from the top */
		int f = sc->m->cur_file;
		screen_inputs(v, sc);
		if (got && f >= 0 && (size_t)f < sc->nidx && lineidx_kept(&sc->idx[f]))
			lineidx_mark(&sc->idx[f], sc->m->cur_line, sc->m->cur_off);
	} while (got && !follower_ended(sc->fl) && wall() - start < 0.05);
	v->data_fd = follower_fd(sc->fl);
	size_t n;
	const follow_notice *nv = follower_notices(sc->fl, &n);
	for (size_t i = 0; i < n; i++) {
		strbuf b = { 0 };
		notice_text(sc->m, &nv[i], &b);
		view_status(v, "%s", b.p);
		sb_free(&b);
	}
	screen_inputs(v, sc);
	if (sc->err.n)
		view_status(v, "%.*s", (int)strcspn(sc->err.p, "\n"), sc->err.p);
}

/* Checks and rebuilds the rows; the cursors stay on their rank and finding
 * although rows and job findings are rebuilt. */
static void screen_check(view *v, screen *sc, double now)
{
	long ri = view_rank(v);
	int pi = ri >= 0 ? v->rw.r[ri].proc : -1;
	const finding *f = view_finding(v);
	char *id = f ? xstrdup(f->id) : NULL, *key = f ? xstrdup(f->key) : NULL;
	sc->m->now = now;
	model_check(sc->m);
	if (now == 0)
		model_order(sc->m);
	print_news(sc->pr, sc->m);
	if (sc->pr->hookerr.n) {
		view_status(v, "%.*s", (int)strcspn(sc->pr->hookerr.p, "\n"), sc->pr->hookerr.p);
		sb_add(&sc->hookerr, sc->pr->hookerr.p, sc->pr->hookerr.n);
		sb_clear(&sc->pr->hookerr);
	}
	view_refresh(v);
	for (size_t i = 0; pi >= 0 && i < v->rw.nvis; i++)
		if (!v->rw.vis[i].group && v->rw.r[v->rw.vis[i].idx].proc == pi)
			v->tl_cur = (long)i;
	for (size_t i = 0; id && i < v->nfvis; i++) {
		const finding *g = &sc->m->fs.v[v->fvis[i]];
		if (strcmp(g->id, id) == 0 && strcmp(g->key, key) == 0)
			v->fd_cur = (long)i;
	}
	free(id);
	free(key);
}

/* End of input (or q before it): the very checks analyze runs, as pipe
 * mode does; the clocks go on. */
static void screen_end(view *v, screen *sc)
{
	follower_close(sc->fl);
	screen_check(v, sc, 0);
	sc->m->now = wall();
	sc->ended = true;
	v->data_fd = -1;
	v->state = "input ended";
	if (!sc->err.n)
		view_status(v, "input ended: q quits");
}

static bool screen_data(view *v, void *ctx)
{
	screen_read(v, ctx);
	return false; /* the tick that follows decides */
}

static bool screen_tick(view *v, void *ctx)
{
	screen *sc = ctx;
	double now = wall();
	bool redraw = false;
	if (sc->pr->hk)
		hooks_poll(sc->pr->hk, &sc->hookerr);
	if (!sc->ended) {
		screen_read(v, sc);
		if (follower_ended(sc->fl)) {
			screen_end(v, sc);
			return true;
		}
		now = wall();
		/* new data, or time passing (a rank going silent) */
		if (now - sc->last_check >= (sc->dirty ? CHECK_EVERY : 1.0)) {
			screen_check(v, sc, now);
			sc->last_check = now;
			sc->dirty = false;
			redraw = true;
		}
	}
	sc->m->now = now;
	if ((long)now != sc->shown_sec) {
		sc->shown_sec = (long)now;
		redraw = true;
	}
	return redraw;
}

/* Opens the terminal; a terminal that cannot address the cursor (dumb, or
 * no /dev/tty) falls back to printing findings. */
static bool screen_open(term *t, enum color_mode cm)
{
	bool color = cm == COLOR_ALWAYS || (cm == COLOR_AUTO && !(getenv("NO_COLOR") && *getenv("NO_COLOR")));
	strbuf err = { 0 };
	int rc = term_open(t, color, &err);
	sb_free(&err);
	return rc == 0;
}

/* Returns the exit status: analyze's, 130 on SIGINT, 2 when the terminal
 * went away or an input could not be read. When the viewer quits (q,
 * Ctrl-C), the report of what was read is printed, as analyze prints it. */
static int run_screen(follower *fl, model *m, term *t, printer *pr, double settle)
{
	screen sc = { .fl = fl, .m = m, .pr = pr };
	m->settle = settle;
	m->now = wall();
	view v;
	view_init(&v, m, t, NULL);
	v.live = true;
	v.state = "reading";
	v.data_fd = follower_fd(fl);
	v.on_data = screen_data;
	v.on_tick = screen_tick;
	v.data_ctx = &sc;
	int rc = keys_run(&v);
	if (!sc.ended)
		screen_end(&v, &sc);
	view_free(&v);
	term_close(t);
	int status = sc.err.n ? 2 : 0;
	for (const char *l = sc.err.p; l && *l;) {
		size_t n = strcspn(l, "\n");
		cli_error("%.*s", (int)n, l);
		l += n + (l[n] == '\n');
	}
	if (rc > 0) {
		status = 130;
	} else if (rc < 0) {
		cli_error("live: the terminal failed or went away");
		status = 2;
	} else if (status == 0) {
		status = error_status(m);
	}
	if (rc >= 0 || term_interrupted()) {
		/* what was on the screen stays: the report of what was read */
		report_opts ro = { .format = FMT_TEXT, .color = pr->color, .version = NCCLOG_VERSION };
		if (report_write(stdout, m, &ro) != 0)
			status = status ? status : 2;
		fflush(stdout);
	}
	if (pr->hk)
		hooks_finish(pr->hk, &sc.hookerr);
	for (const char *l = sc.hookerr.p; l && *l;) {
		size_t n = strcspn(l, "\n");
		cli_error("%.*s", (int)n, l);
		l += n + (l[n] == '\n');
	}
	for (size_t i = 0; i < sc.nidx; i++)
		lineidx_free(&sc.idx[i]);
	free(sc.idx);
	sb_free(&sc.err);
	sb_free(&sc.hookerr);
	return status;
}

/* The viewer needs a terminal on standard output, and keys that do not
 * come from the data: not when standard input is both. */
static bool want_screen(bool no_tui, bool json, char **paths, size_t n)
{
	if (no_tui || json || !isatty(STDOUT_FILENO))
		return false;
	bool reads_stdin = n == 0;
	for (size_t i = 0; i < n; i++)
		reads_stdin |= strcmp(paths[i], "-") == 0;
	return !(reads_stdin && isatty(STDIN_FILENO));
}

/* "0.5", "30": seconds, more than 0 and at most a day. */
static bool seconds(const char *s, double *out)
{
	char *end;
	double v = strtod(s, &end);
	if (end == s || *end || !(v > 0) || v > 86400)
		return false;
	*out = v;
	return true;
}

typedef struct lopts {
	bool follow, no_tui;
	double settle, exec_timeout;
	const char *exec;
} lopts;

static int on_opt(void *ctx, int opt, const char *v)
{
	lopts *o = ctx;
	switch (opt) {
	case O_FOLLOW:
		o->follow = true;
		break;
	case O_SETTLE:
		if (!seconds(v, &o->settle))
			return cli_usage_error(&live_cmd, "--settle takes seconds, more than 0, not '%s'", v);
		break;
	case O_EXEC:
		o->exec = v;
		break;
	case O_EXEC_TIMEOUT:
		if (!seconds(v, &o->exec_timeout))
			return cli_usage_error(&live_cmd, "--exec-timeout takes seconds, more than 0, not '%s'", v);
		break;
	case O_NO_TUI:
		o->no_tui = true;
		break;
	}
	return 0;
}

static int live_run(const cli_args *ca, const lopts *lo);

int cmd_live(int argc, char **argv)
{
	lopts lo = { .settle = 10, .exec_timeout = 30 };
	cli_args ca;
	int rc = cli_parse(&live_cmd, argc, argv, on_opt, &lo, &ca);
	if (rc) {
		cli_args_free(&ca);
		return rc == 1 ? 0 : 2;
	}
	int status = live_run(&ca, &lo);
	cli_args_free(&ca);
	return status;
}

/* live over its parsed command line; returns the exit status. */
static int live_run(const cli_args *ca, const lopts *lo)
{
	bool follow = lo->follow, json = ca->format == FMT_JSON, no_tui = lo->no_tui;
	enum color_mode cm = ca->color;
	double settle = lo->settle, exec_timeout = lo->exec_timeout;
	const char *exec = lo->exec;
	char **extra = ca->rules;
	size_t nextra = ca->nrules;
	char **files = ca->operands;
	size_t nfiles = ca->noperands;
	bool on_tty = want_screen(no_tui, json, files, nfiles);
	strbuf err = { 0 };
	/* a hook's output must not draw over the viewer, nor mix with the findings */
	hooks *hk = exec ? hooks_new(exec, exec_timeout, on_tty ? -1 : STDERR_FILENO, &err) : NULL;
	if (exec && !hk) {
		cli_error("live: %s", err.p);
		sb_free(&err);
		return 2;
	}
	setup s;
	if (setup_load_or_report(&s, extra, nextra) != 0) {
		hooks_free(hk);
		sb_free(&err);
		return 2;
	}
	model m;
	model_init(&m, &s.cat);
	follower fl;
	term t;
	int status = 0;
	printer pr = { .json = json, .color = !json && color_enabled(cm, STDOUT_FILENO), .out = stdout, .hk = hk };
	if (follower_open(&fl, &m, &s.rs, files, nfiles, follow, &err) != 0) {
		cli_error("%s", err.p);
		status = 2;
	} else if (on_tty && screen_open(&t, cm)) {
		pr.out = NULL; /* the viewer shows them, and the report follows */
		status = run_screen(&fl, &m, &t, &pr, settle);
		follower_close(&fl);
	} else {
		if (hk)
			hooks_output(hk, STDERR_FILENO); /* no viewer after all */
		struct sigaction sa = { 0 };
		sa.sa_handler = on_signal;
		sigaction(SIGINT, &sa, NULL);
		sigaction(SIGTERM, &sa, NULL);
		status = run_pipe(&fl, &m, &pr, settle);
		follower_close(&fl);
		/* end of input, or an interrupt: the very checks analyze runs,
		 * over what was read */
		m.now = 0;
		model_check(&m);
		model_order(&m);
		print_news(&pr, &m);
		if (interrupted)
			status = 128 + (int)interrupted;
		else if (status == 0)
			status = error_status(&m);
		if (hk)
			hooks_finish(hk, &pr.hookerr);
		say_hook_errors(&pr);
		if (!json) {
			strbuf b = { 0 };
			sb_adds(&b, interrupted ? "interrupted\n" : "input ended\n");
			report_summary_text(&b, &m, pr.color);
			fwrite(b.p, 1, b.n, stdout);
			sb_free(&b);
		} else {
			print_end(&pr, &m, status, interrupted != 0);
		}
		fflush(stdout);
	}
	printer_free(&pr);
	hooks_free(hk);
	model_free(&m);
	setup_free(&s);
	sb_free(&err);
	return status;
}
