#include "probe.h"

#include <dlfcn.h>
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#define PROBE_OUT_MAX 1024

static void put(int fd, const char *s)
{
	size_t n = strlen(s);
	while (n) {
		ssize_t w = write(fd, s, n);
		if (w <= 0)
			return;
		s += w;
		n -= (size_t)w;
	}
}

/* "E text\n" with the text on one line. */
static void put_err(int fd, char tag, const char *text)
{
	char b[300];
	snprintf(b, sizeof b, "%c %s", tag, text ? text : "");
	for (char *p = b; *p; p++)
		if (*p == '\n' || *p == '\r')
			*p = ' ';
	put(fd, b);
	put(fd, "\n");
}

typedef int (*version_fn)(int *);

/* The child: never returns. */
static void child(int fd, const char *path, enum probe_kind kind)
{
	int null = open("/dev/null", O_RDWR);
	if (null >= 0) {
		dup2(null, 0);
		dup2(null, 1);
		dup2(null, 2);
	}
	struct rlimit no_core = { 0, 0 };
	setrlimit(RLIMIT_CORE, &no_core);
	/* a crash is a crash: no handler inherited from the parent (a sanitizer's) turns it into an exit */
	static const int fatal[] = { SIGSEGV, SIGBUS, SIGILL, SIGFPE, SIGABRT };
	for (size_t i = 0; i < sizeof fatal / sizeof fatal[0]; i++)
		signal(fatal[i], SIG_DFL);
	void *h = dlopen(path, RTLD_LAZY | RTLD_LOCAL);
	if (!h) {
		put_err(fd, 'E', dlerror());
		_exit(0);
	}
	put(fd, "L\n");
	char b[128];
	if (kind == PROBE_NET_PLUGIN) {
		for (int v = 12; v >= 2; v--) {
			snprintf(b, sizeof b, "ncclNetPlugin_v%d", v);
			const char *const *sym = dlsym(h, b);
			if (!sym)
				continue;
			/* every ncclNet_vN_t starts with `const char *name` */
			char name[64] = "";
			const char *s = *sym;
			for (size_t i = 0; s && s[i] && i < sizeof name - 1; i++)
				name[i] = s[i] >= 0x20 && s[i] < 0x7f ? s[i] : '?';
			snprintf(b, sizeof b, "P %d ", v);
			put(fd, b);
			put(fd, name);
			put(fd, "\n");
			_exit(0);
		}
		put_err(fd, 'S', "it exports no ncclNetPlugin_v2 to _v12 symbol: not an NCCL net plugin");
		_exit(0);
	}
	const char *name = kind == PROBE_NCCL_VERSION ? "ncclGetVersion" : "cuDriverGetVersion";
	version_fn fn = (version_fn)(uintptr_t)dlsym(h, name);
	if (!fn) {
		snprintf(b, sizeof b, "it exports no %s", name);
		put_err(fd, 'S', b);
		_exit(0);
	}
	int v = 0;
	int rc = fn(&v);
	snprintf(b, sizeof b, "V %d %d\n", rc, v);
	put(fd, b);
	_exit(0);
}

static double now_ms(void)
{
	struct timespec t;
	clock_gettime(CLOCK_MONOTONIC, &t);
	return (double)t.tv_sec * 1e3 + (double)t.tv_nsec / 1e6;
}

/* Reads the child's lines until it closes the pipe or the time is up.
 * Returns false on timeout. */
static bool collect(int fd, char *buf, size_t size, int timeout_ms)
{
	size_t n = 0;
	double end = now_ms() + timeout_ms;
	for (;;) {
		int left = (int)(end - now_ms());
		if (left <= 0)
			return false;
		struct pollfd p = { .fd = fd, .events = POLLIN };
		int r = poll(&p, 1, left);
		if (r < 0 && errno == EINTR)
			continue;
		if (r <= 0)
			return r < 0;
		ssize_t got = read(fd, buf + n, size - 1 - n);
		if (got < 0 && errno == EINTR)
			continue;
		if (got <= 0 || (n += (size_t)got) >= size - 1)
			break;
	}
	buf[n] = '\0';
	return true;
}

static void parse(const char *text, probe_result *out)
{
	for (const char *l = text; *l;) {
		size_t n = strcspn(l, "\n");
		char line[300];
		snprintf(line, sizeof line, "%.*s", (int)(n < sizeof line - 1 ? n : sizeof line - 1), l);
		if (line[0] == 'L') {
			out->loaded = true;
		} else if (line[0] == 'E' || line[0] == 'S') {
			snprintf(out->err, sizeof out->err, "%.250s", line + 2);
		} else if (line[0] == 'V' && sscanf(line + 2, "%d %d", &out->rc, &out->value) == 2) {
			out->called = true;
		} else if (line[0] == 'P' && sscanf(line + 2, "%d", &out->abi) == 1) {
			const char *sp = strchr(line + 2, ' ');
			snprintf(out->name, sizeof out->name, "%s", sp ? sp + 1 : "");
			out->called = true;
		}
		l += n;
		if (*l)
			l++;
	}
}

void probe_run(const char *path, enum probe_kind kind, int timeout_ms, probe_result *out)
{
	*out = (probe_result){ 0 };
	int fds[2];
	if (pipe2(fds, O_CLOEXEC) != 0) {
		snprintf(out->err, sizeof out->err, "cannot probe it: pipe: %s", strerror(errno));
		return;
	}
	fflush(NULL); /* the child must not write our buffered output twice */
	pid_t pid = fork();
	if (pid < 0) {
		snprintf(out->err, sizeof out->err, "cannot probe it: fork: %s", strerror(errno));
		close(fds[0]);
		close(fds[1]);
		return;
	}
	if (pid == 0) {
		close(fds[0]);
		child(fds[1], path, kind);
	}
	close(fds[1]);
	char buf[PROBE_OUT_MAX];
	bool done = collect(fds[0], buf, sizeof buf, timeout_ms);
	close(fds[0]);
	if (!done)
		kill(pid, SIGKILL);
	int st = 0;
	while (waitpid(pid, &st, 0) < 0 && errno == EINTR)
		;
	if (!done) {
		snprintf(out->err, sizeof out->err, "loading it did not finish in %d ms", timeout_ms);
		return;
	}
	parse(buf, out);
	if (!out->called && !out->err[0]) {
		if (WIFSIGNALED(st))
			snprintf(out->err, sizeof out->err, "%s it crashed (signal %d, %s)",
				 out->loaded ? "calling into" : "loading", WTERMSIG(st), strsignal(WTERMSIG(st)));
		else
			snprintf(out->err, sizeof out->err, "loading it ended without an answer (exit %d)",
				 WIFEXITED(st) ? WEXITSTATUS(st) : -1);
	}
}
