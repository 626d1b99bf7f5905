#include "hook.h"

#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

typedef struct run {
	pid_t pid;
	double start;
	char *what;
	bool stopped; /* past its timeout */
} run;

typedef struct job {
	char *id, *what, *json;
} job;

struct hooks {
	char **argv;
	size_t argc;
	double timeout;
	int out_fd;
	run running[HOOK_RUNNING];
	size_t nrunning;
	job queue[HOOK_QUEUED];
	size_t qhead, qn;
	size_t nrun, nfailed, ndropped;
};

static double clock_now(void)
{
	struct timespec t;
	clock_gettime(CLOCK_MONOTONIC, &t);
	return (double)t.tv_sec + (double)t.tv_nsec / 1e9;
}

/* Words as a shell splits them, without expanding anything. */
static int split_words(const char *s, char ***argv, size_t *argc, strbuf *err)
{
	char **v = NULL;
	size_t n = 0, cap = 0;
	strbuf w = { 0 };
	bool in_word = false;
	char quote = 0;
	for (const char *p = s;; p++) {
		char ch = *p;
		if (!ch) {
			if (quote) {
				sb_printf(err, "--exec: the %s quote is not closed", quote == '\'' ? "single" : "double");
				break;
			}
			if (in_word) {
				grow(&v, &cap, n + 1, sizeof *v);
				v[n++] = sb_take(&w);
			}
			grow(&v, &cap, n + 1, sizeof *v);
			v[n] = NULL;
			sb_free(&w);
			if (!n) {
				sb_adds(err, "--exec: no command");
				free(v);
				return -1;
			}
			*argv = v;
			*argc = n;
			return 0;
		}
		if (quote == '\'') {
			if (ch == '\'')
				quote = 0;
			else
				sb_addc(&w, ch);
		} else if (quote == '"') {
			if (ch == '"')
				quote = 0;
			else if (ch == '\\' && p[1] && strchr("\"\\$`", p[1]))
				sb_addc(&w, *++p);
			else
				sb_addc(&w, ch);
		} else if (ch == ' ' || ch == '\t' || ch == '\n') {
			if (in_word) {
				grow(&v, &cap, n + 1, sizeof *v);
				v[n++] = sb_take(&w);
				in_word = false;
			}
		} else {
			in_word = true;
			if (ch == '\'' || ch == '"')
				quote = ch;
			else if (ch == '\\' && p[1])
				sb_addc(&w, *++p);
			else
				sb_addc(&w, ch);
			/* "" is an empty word */
			if (quote && !w.p)
				sb_adds(&w, "");
		}
	}
	for (size_t i = 0; i < n; i++)
		free(v[i]);
	free(v);
	sb_free(&w);
	return -1;
}

hooks *hooks_new(const char *cmdline, double timeout, int out_fd, strbuf *err)
{
	hooks *h = xcalloc(1, sizeof *h);
	if (split_words(cmdline, &h->argv, &h->argc, err) != 0) {
		free(h);
		return NULL;
	}
	h->timeout = timeout;
	h->out_fd = out_fd;
	return h;
}

void hooks_output(hooks *h, int out_fd)
{
	h->out_fd = out_fd;
}

void hooks_fire(hooks *h, const char *id, const char *what, const char *json)
{
	if (h->qn == HOOK_QUEUED) {
		h->ndropped++;
		return;
	}
	job *j = &h->queue[(h->qhead + h->qn++) % HOOK_QUEUED];
	*j = (job){ xstrdup(id), xstrdup(what), xstrdup(json) };
}

static void job_free(job *j)
{
	free(j->id);
	free(j->what);
	free(j->json);
	*j = (job){ 0 };
}

static void failed(hooks *h, strbuf *report, const char *what, const char *fmt, ...)
	__attribute__((format(printf, 4, 5)));
static void failed(hooks *h, strbuf *report, const char *what, const char *fmt, ...)
{
	h->nfailed++;
	char msg[256];
	va_list ap;
	va_start(ap, fmt);
	vsnprintf(msg, sizeof msg, fmt, ap);
	va_end(ap);
	sb_printf(report, "--exec for %s: %s %s\n", what, h->argv[0], msg);
}

/* The child: its own process group (a Ctrl-C meant for ncclog does not
 * cut an alert short; a timeout stops all it started), the finding on
 * standard input, the output where it is told to go. */
static void child(const hooks *h, int in, int err_pipe, const char *id)
{
	setpgid(0, 0);
	int out = h->out_fd >= 0 ? h->out_fd : open("/dev/null", O_WRONLY | O_CLOEXEC);
	if (dup2(in, STDIN_FILENO) < 0 || out < 0 || dup2(out, STDOUT_FILENO) < 0 || dup2(out, STDERR_FILENO) < 0)
		_exit(126);
	signal(SIGPIPE, SIG_DFL);
	setenv("NCCLOG_FINDING_ID", id, 1);
	execvp(h->argv[0], h->argv);
	int e = errno;
	ssize_t w = write(err_pipe, &e, sizeof e);
	(void)w;
	_exit(127);
}

static void start(hooks *h, job *j, strbuf *report)
{
	FILE *in = tmpfile();
	int pfd[2] = { -1, -1 };
	if (!in || fputs(j->json, in) == EOF || fputc('\n', in) == EOF || fflush(in) != 0 || pipe2(pfd, O_CLOEXEC) != 0) {
		failed(h, report, j->what, "cannot be given the finding: %s", strerror(errno));
		if (in)
			fclose(in);
		return;
	}
	rewind(in);
	fflush(stdout);
	fflush(stderr);
	pid_t pid = fork();
	if (pid == 0)
		child(h, fileno(in), pfd[1], j->id);
	close(pfd[1]);
	fclose(in);
	if (pid < 0) {
		failed(h, report, j->what, "cannot be started: %s", strerror(errno));
		close(pfd[0]);
		return;
	}
	h->nrun++;
	int e = 0;
	ssize_t got;
	do
		got = read(pfd[0], &e, sizeof e);
	while (got < 0 && errno == EINTR);
	close(pfd[0]);
	if (got == (ssize_t)sizeof e) {
		/* exec failed: the child is gone */
		while (waitpid(pid, NULL, 0) < 0 && errno == EINTR)
			;
		failed(h, report, j->what, "cannot be run: %s", strerror(e));
		return;
	}
	h->running[h->nrunning++] = (run){ pid, clock_now(), xstrdup(j->what), false };
}

static void reap(hooks *h, strbuf *report)
{
	double now = clock_now();
	for (size_t i = 0; i < h->nrunning;) {
		run *r = &h->running[i];
		int st;
		pid_t got = waitpid(r->pid, &st, WNOHANG);
		if (got == 0) {
			if (!r->stopped && now - r->start > h->timeout) {
				kill(-r->pid, SIGKILL);
				kill(r->pid, SIGKILL);
				r->stopped = true;
			}
			i++;
			continue;
		}
		if (got < 0 && errno == EINTR)
			continue;
		if (r->stopped)
			failed(h, report, r->what, "stopped after %g s (--exec-timeout)", h->timeout);
		else if (got > 0 && WIFEXITED(st) && WEXITSTATUS(st) != 0)
			failed(h, report, r->what, "exited with status %d", WEXITSTATUS(st));
		else if (got > 0 && WIFSIGNALED(st))
			failed(h, report, r->what, "killed by signal %d", WTERMSIG(st));
		free(r->what);
		h->running[i] = h->running[--h->nrunning];
	}
}

void hooks_poll(hooks *h, strbuf *report)
{
	reap(h, report);
	while (h->qn && h->nrunning < HOOK_RUNNING) {
		job *j = &h->queue[h->qhead];
		start(h, j, report);
		job_free(j);
		h->qhead = (h->qhead + 1) % HOOK_QUEUED;
		h->qn--;
	}
}

void hooks_finish(hooks *h, strbuf *report)
{
	for (;;) {
		hooks_poll(h, report);
		if (!h->qn && !h->nrunning)
			return;
		/* each run ends within its timeout: this waits a bounded time */
		struct timespec ts = { 0, 20 * 1000 * 1000 };
		nanosleep(&ts, NULL);
	}
}

void hooks_counts(const hooks *h, size_t *nrun, size_t *nfailed, size_t *ndropped)
{
	*nrun = h->nrun;
	*nfailed = h->nfailed;
	*ndropped = h->ndropped;
}

void hooks_free(hooks *h)
{
	if (!h)
		return;
	for (size_t i = 0; i < h->argc; i++)
		free(h->argv[i]);
	free(h->argv);
	for (size_t i = 0; i < h->nrunning; i++)
		free(h->running[i].what);
	for (size_t i = 0; i < h->qn; i++)
		job_free(&h->queue[(h->qhead + i) % HOOK_QUEUED]);
	free(h);
}
