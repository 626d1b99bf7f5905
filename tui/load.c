#include "load.h"

#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <stdatomic.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "../ingest/input.h"
#include "../ingest/parallel.h"
#include "../ingest/pool.h"
#include "../ingest/structured.h"
#include "../parser/source.h"

#define LOAD_CHUNK (256u * 1024u)
/* Logs read ahead of the merge, per thread (models held at once). */
#define WINDOW_PER_JOB 4

/* How an input is read back: by path, from a spool, or not at all. */
enum how { HOW_PATH, HOW_SPOOL, HOW_DUMP };

/* The next line starts at a known place between chunks unless the tail of
 * a cut line is being skipped. */
static void checkpoint(const pipeline *p, lineidx *x)
{
	if (p->ls.skipping)
		return;
	lineidx_mark(x, p->ls.lineno + 1, p->ls.ncarry ? p->ls.carry_off : p->ls.pos);
}

/* A plain regular file is read back where it is; anything else (standard
 * input, a pipe, a compressed file) is spooled. */
static enum how how_of(const char *path, const structured_kind **kind)
{
	*kind = NULL;
	if (strcmp(path, "-") == 0)
		return HOW_SPOOL;
	struct stat st;
	/* a pipe is never sniffed: what sniffing reads would be lost */
	if (stat(path, &st) != 0 || !S_ISREG(st.st_mode))
		return HOW_SPOOL;
	if ((*kind = structured_sniff(path)))
		return HOW_DUMP;
	unsigned char magic[4] = { 0 };
	int fd = open(path, O_RDONLY | O_CLOEXEC | O_NOCTTY | O_NONBLOCK);
	bool packed = false;
	if (fd >= 0) {
		if (pread(fd, magic, sizeof magic, 0) == (ssize_t)sizeof magic)
			packed = (magic[0] == 0x1f && magic[1] == 0x8b) ||
				 (magic[0] == 0x28 && magic[1] == 0xb5 && magic[2] == 0x2f && magic[3] == 0xfd);
		close(fd);
	}
	return packed ? HOW_SPOOL : HOW_PATH;
}

int load_check(const char *path, strbuf *err)
{
	if (strcmp(path, "-") == 0) {
		if (isatty(STDIN_FILENO)) {
			sb_adds(err, "standard input is a terminal: pipe a log in (zcat job.log.gz | ncclog view -) or name files\n");
			return -1;
		}
		return 0;
	}
	int fd = open(path, O_RDONLY | O_CLOEXEC | O_NOCTTY | O_NONBLOCK);
	struct stat st;
	if (fd < 0 || fstat(fd, &st) != 0 || S_ISDIR(st.st_mode)) {
		sb_printf(err, "%s: %s\n", path, fd < 0 ? strerror(errno) : "is a directory");
		if (fd >= 0)
			close(fd);
		return -1;
	}
	close(fd);
	return 0;
}

static uint64_t spool_max(void)
{
	const char *s = getenv("NCCLOG_SPOOL_MAX");
	if (!s || !*s)
		return LOAD_SPOOL_MAX;
	char *end;
	unsigned long long v = strtoull(s, &end, 10);
	int shift = *end == 'K' || *end == 'k' ? 10 : *end == 'M' || *end == 'm' ? 20 : *end == 'G' || *end == 'g' ? 30 : 0;
	return shift && v < (1ull << (63 - shift)) ? v << shift : v;
}

/* An unlinked temporary file: nothing is left behind, whatever happens. */
static int spool_open(strbuf *err)
{
	const char *dir = getenv("TMPDIR");
	if (!dir || !*dir)
		dir = "/tmp";
	strbuf path = { 0 };
	sb_printf(&path, "%s/ncclog-view-XXXXXX", dir);
	int fd = mkostemp(path.p, O_CLOEXEC);
	if (fd < 0)
		sb_printf(err, "cannot make a spool in %s: %s", dir, strerror(errno));
	else
		unlink(path.p);
	sb_free(&path);
	return fd;
}

/* "512 KiB", "3.5 MiB", "8.0 GiB" */
static void human(strbuf *b, uint64_t n)
{
	if (n < (1u << 20))
		sb_printf(b, "%llu KiB", (unsigned long long)(n >> 10));
	else if (n < (1ull << 30))
		sb_printf(b, "%.1f MiB", (double)n / 1048576.0);
	else
		sb_printf(b, "%.1f GiB", (double)n / 1073741824.0);
}

typedef struct spool {
	int fd;
	uint64_t kept, max;
	bool full;
} spool;

static void spool_write(spool *sp, const char *p, size_t n, const char *name, strbuf *notes)
{
	if (sp->full)
		return;
	if (sp->kept + n > sp->max) {
		n = (size_t)(sp->max - sp->kept);
		sp->full = true;
	}
	while (n) {
		ssize_t w = pwrite(sp->fd, p, n, (off_t)sp->kept);
		if (w < 0 && errno == EINTR)
			continue;
		if (w <= 0) {
			sb_printf(notes, "%s: the spool stopped at ", name);
			human(notes, sp->kept);
			sb_printf(notes, " (%s): later lines are analyzed but not shown\n", w < 0 ? strerror(errno) : "no space");
			sp->full = true;
			return;
		}
		sp->kept += (uint64_t)w;
		p += w;
		n -= (size_t)w;
	}
	if (sp->full) {
		sb_printf(notes, "%s: only its first ", name);
		human(notes, sp->max);
		sb_adds(notes, " are kept for reading back (NCCLOG_SPOOL_MAX); the rest is analyzed\n");
	}
}

/* Waits for a pipe to have data, so that an interrupt is seen while the
 * writer is quiet; false when progress asked to stop. */
static bool wait_readable(int fd, uint64_t done, uint64_t total, const char *name, load_progress_fn progress,
			  void *ctx)
{
	for (;;) {
		struct pollfd pf = { fd, POLLIN, 0 };
		int n = poll(&pf, 1, 200);
		if (n != 0 || !progress)
			return !progress || progress(ctx, done, total, name);
		if (!progress(ctx, done, total, name))
			return false;
	}
}

/* Reads one log into input `file`. Returns 1 when read, 0 when it could
 * not be, -1 when progress asked to stop. */
static int load_log(model *m, ruleset *rs, const char *path, int file, enum how how, lineidx *x, uint64_t *done,
		    uint64_t total, load_progress_fn progress, void *ctx, strbuf *err, strbuf *notes)
{
	const char *name = m->in[file].name;
	strbuf e = { 0 };
	source *src = source_open(path, &e);
	if (!src) {
		sb_printf(err, "%s\n", e.p);
		sb_free(&e);
		lineidx_init_none(x);
		return 0;
	}
	spool sp = { .fd = -1, .max = spool_max() };
	if (how == HOW_SPOOL) {
		sp.fd = spool_open(&e);
		if (sp.fd < 0) {
			sb_printf(err, "%s: %s\n", name, e.p);
			sb_free(&e);
			source_close(src);
			lineidx_init_none(x);
			return 0;
		}
		lineidx_init_fd(x, sp.fd);
	} else {
		lineidx_init(x, path);
	}
	struct stat st;
	bool pipe = strcmp(path, "-") == 0 && fstat(STDIN_FILENO, &st) == 0 && !S_ISREG(st.st_mode);
	pipeline p;
	pipeline_begin(&p, m, rs, file);
	int rc = 1;
	bool first = true;
	for (;;) {
		if (pipe && !first && !wait_readable(STDIN_FILENO, *done, total, name, progress, ctx)) {
			rc = -1;
			break;
		}
		first = false;
		const char *buf;
		ssize_t n = source_next(src, &buf, &e);
		if (n < 0) {
			sb_printf(err, "%s\n", e.p);
			break;
		}
		if (n == 0)
			break;
		if (sp.fd >= 0)
			spool_write(&sp, buf, (size_t)n, name, notes);
		pipeline_feed(&p, buf, (size_t)n);
		checkpoint(&p, x);
		*done += (uint64_t)n;
		if (progress && !progress(ctx, *done, total, name)) {
			rc = -1;
			break;
		}
	}
	pipeline_end(&p);
	x->lines = m->in[file].lines;
	if (sp.full)
		x->limit = sp.kept;
	source_close(src);
	sb_free(&e);
	return rc;
}

/* ---- several logs at once ----
 * Each log is read on a thread of its own into a model of its own, with
 * its line index, and the models are merged in input order: the model is
 * the one reading them one after another gives. The bar is drawn by the
 * merging thread from the bytes all readers have read. */

typedef struct lrun lrun;

typedef struct litem {
	lrun *run;
	const char *path;
	int file;
	enum how how;
	model m;
	uint64_t done, told; /* bytes read; of them added to the run's count */
	strbuf err, notes;
	int rc;
	bool read;
} litem;

struct lrun {
	litem *items;
	model *m;
	model proto; /* m before the merges, which the readers borrow from */
	ruleset *rs;
	lineidx *idx;
	uint64_t total;
	_Atomic uint64_t done;
	atomic_bool stop;
	load_progress_fn progress;
	void *ctx;
	size_t merged;
	strbuf *err, *notes;
	int nread;
};

static bool item_progress(void *ctx, uint64_t done, uint64_t total, const char *name)
{
	(void)total, (void)name;
	litem *it = ctx;
	atomic_fetch_add(&it->run->done, done - it->told);
	it->told = done;
	return !atomic_load(&it->run->stop);
}

static void *thread_begin(void *ctx)
{
	return parallel_rules_clone(((lrun *)ctx)->rs);
}

static void thread_end(void *ctx, void *state)
{
	parallel_rules_fold(((lrun *)ctx)->rs, state);
}

static void item_read(void *ctx, size_t i, void *state)
{
	lrun *r = ctx;
	litem *it = &r->items[i];
	parallel_model_like(&it->m, &r->proto);
	it->read = true;
	it->rc = load_log(&it->m, state, it->path, it->file, it->how, &r->idx[it->file], &it->done, r->total,
			  item_progress, it, &it->err, &it->notes);
}

static void item_merge(void *ctx, size_t i)
{
	lrun *r = ctx;
	litem *it = &r->items[i];
	model_merge_take(r->m, &it->m);
	/* the lines are counted in the model it was merged into */
	r->idx[it->file].lines = r->m->in[it->file].lines;
	sb_add(r->err, it->err.p ? it->err.p : "", it->err.n);
	sb_add(r->notes, it->notes.p ? it->notes.p : "", it->notes.n);
	sb_free(&it->err);
	sb_free(&it->notes);
	r->nread += it->rc > 0;
	r->merged = i + 1;
}

static bool run_wait(void *ctx)
{
	lrun *r = ctx;
	const char *name = r->m->in[r->items[r->merged].file].name;
	bool go_on = r->progress(r->ctx, atomic_load(&r->done), r->total, name);
	if (!go_on)
		atomic_store(&r->stop, true);
	return go_on;
}

/* Reads the logs among inputs[0..n) (how[i] not HOW_DUMP) on `jobs`
 * threads; returns the number read, or -1 when progress asked to stop. */
static int load_logs_parallel(model *m, ruleset *rs, char **paths, const enum how *how, size_t n, int base,
			      int jobs, lineidx *idx, uint64_t total, load_progress_fn progress, void *ctx,
			      strbuf *err, strbuf *notes)
{
	lrun r = { .m = m, .proto = *m, .rs = rs, .idx = idx, .total = total, .progress = progress, .ctx = ctx, .err = err,
		   .notes = notes };
	r.items = xcalloc(n, sizeof *r.items);
	size_t nitems = 0;
	for (size_t i = 0; i < n; i++)
		if (how[i] != HOW_DUMP)
			r.items[nitems++] = (litem){ .run = &r, .path = paths[i], .file = base + (int)i, .how = how[i] };
	static const pool_ops ops = { thread_begin, thread_end, item_read, item_merge, run_wait };
	size_t merged = pool_run(nitems, jobs, (size_t)jobs * WINDOW_PER_JOB, &ops, &r);
	for (size_t i = merged; i < nitems; i++) {
		if (r.items[i].read)
			model_free(&r.items[i].m);
		sb_free(&r.items[i].err);
		sb_free(&r.items[i].notes);
	}
	free(r.items);
	return merged < nitems ? -1 : r.nread;
}

int load_files(model *m, ruleset *rs, char **paths, size_t n, int jobs, lineidx *idx, load_progress_fn progress,
	       void *ctx, strbuf *err, strbuf *notes)
{
	enum how *how = xcalloc(n ? n : 1, sizeof *how);
	const structured_kind **kind = xcalloc(n ? n : 1, sizeof *kind);
	uint64_t total = 0, done = 0;
	int base = (int)m->nin;
	strbuf name = { 0 };
	for (size_t i = 0; i < n; i++) {
		lineidx_init_none(&idx[base + (int)i]);
		how[i] = how_of(paths[i], &kind[i]);
		struct stat st;
		if (how[i] != HOW_DUMP && strcmp(paths[i], "-") != 0 && stat(paths[i], &st) == 0 && S_ISREG(st.st_mode))
			total += (uint64_t)st.st_size;
		sb_clear(&name);
		input_name(paths[i], NULL, &name);
		model_add_input(m, name.p);
	}
	sb_free(&name);
	int nread = 0, nlogs = 0;
	bool piped = false;
	for (size_t i = 0; i < n; i++) {
		struct stat st;
		nlogs += how[i] != HOW_DUMP;
		piped |= how[i] != HOW_DUMP && (stat(paths[i], &st) != 0 || !S_ISREG(st.st_mode));
	}
	parallel_choose_gate(rs, total);
	/* a pipe is read on this thread, which sees an interrupt while the
	 * pipe's writer is quiet */
	if (jobs > 1 && nlogs > 1 && !piped)
		nread = load_logs_parallel(m, rs, paths, how, n, base, jobs, idx, total, progress, ctx, err, notes);
	else
		for (size_t i = 0; i < n && nread >= 0; i++) {
			if (how[i] == HOW_DUMP)
				continue;
			int rc = load_log(m, rs, paths[i], base + (int)i, how[i], &idx[base + (int)i], &done, total,
					  progress, ctx, err, notes);
			nread = rc < 0 ? -1 : nread + rc;
		}
	/* the inputs that are not logs, kind by kind (ingest/structured.h) */
	strbuf e = { 0 };
	for (size_t i = 0; i < n && nread >= 0; i++) {
		const structured_kind *k = kind[i];
		bool first = true;
		for (size_t j = 0; j < i && first; j++)
			first = kind[j] != k;
		if (!k || !first)
			continue;
		void *st = k->begin();
		for (size_t j = i; j < n; j++) {
			if (kind[j] != k)
				continue;
			sb_clear(&e);
			if (k->add(st, paths[j], m->in[base + (int)j].name, &e) != 0)
				sb_printf(err, "%s\n", e.p);
			else
				nread++;
		}
		k->end(st, m);
	}
	sb_free(&e);
	free(how);
	free(kind);
	return nread;
}
