#include "parallel.h"

#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "../parser/join.h"
#include "../parser/source.h"
#include "input.h"
#include "pool.h"
#include "structured.h"

/* A big plain file is cut at newlines into parts of at least this size
 * (NCCLOG_CHUNK_BYTES overrides it, for tests), read on several threads. */
#define CHUNK_MIN (64u << 20)
/* what a part reads at a time: as much as a whole input's reads (source.c),
 * for the same cache */
#define READ_BUF (64u * 1024u)
/* Items read ahead of the merge, per thread: enough that a worker seldom
 * waits for the merge of the small files before, few enough that the
 * models held stay few. */
#define WINDOW_PER_JOB 8
/* Consecutive small files are read into one model, up to this many bytes
 * or files: a model made, indexed and merged for each of 8192 rank files
 * of 70 KB costs a fifth of the reading. */
#define BATCH_BYTES (4u << 20)
#define BATCH_FILES 64
/* and into no fewer items than this, per thread, so the threads finish
 * together */
#define ITEMS_PER_JOB 16

/* One unit of work: whole inputs [file, file + nfiles), or a part
 * [start, end) of one plain file. */
typedef struct item {
	int file;
	int nfiles;
	bool part;
	off_t start, end; /* a part's */
	off_t bytes;      /* whole inputs': the sizes of the regular files */
	model m;
	strbuf err; /* its inputs' messages, each ended by a NUL */
	size_t nerr;
	int rc;
} item;

/* What the pool's callbacks share: the items, the run's model and rules. */
typedef struct run {
	char *const *paths;
	/* per input: set when it is not a log, told by its first chunk */
	const structured_kind **kind;
	item *items;
	model *m;
	/* m as it was before the merges began, for the readers: its catalog
	 * and input table stay, and the merges rewrite m's fields */
	model proto;
	ruleset *rs;
	parallel_error_fn err;
	void *ctx;
	size_t failed;
	int last_failed;
} run;

/* Every per-item model sees all inputs, so input indices are global: it
 * borrows the run's table (a copy each would cost N^2 for N files), and
 * its keys come from the run's (not two getrandom calls an input). */
void parallel_model_like(model *m, const model *proto)
{
	model_init_keyed(m, proto->cat, &proto->hkey);
	model_borrow_inputs(m, proto);
}

/* Reads [start, end) of a plain file; line numbers count from the part's
 * first line (the merge shifts them), offsets are the file's own. */
static int read_part(item *it, const char *path, ruleset *rs)
{
	int fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0) {
		sb_printf(&it->err, "%s: %s", path, strerror(errno));
		it->nerr++;
		return -1;
	}
	pipeline p;
	it->m.partial = it->start > 0;
	pipeline_begin_at(&p, &it->m, rs, it->file, 1, (uint64_t)it->start);
	/* page-aligned: the kernel copies to a misaligned buffer at a third of
	 * the speed */
	char *mem = xmalloc(READ_BUF + 4096), *buf = mem + (4096 - (uintptr_t)mem % 4096) % 4096;
	int rc = 0;
	for (off_t off = it->start; off < it->end;) {
		size_t want = (size_t)(it->end - off) < READ_BUF ? (size_t)(it->end - off) : READ_BUF;
		ssize_t r = pread(fd, buf, want, off);
		if (r < 0 && errno == EINTR)
			continue;
		if (r <= 0) {
			if (r < 0) {
				sb_printf(&it->err, "%s: %s", path, strerror(errno));
				it->nerr++;
				rc = -1;
			}
			break;
		}
		pipeline_feed(&p, buf, (size_t)r);
		off += r;
	}
	pipeline_end(&p);
	free(mem);
	close(fd);
	return rc;
}

ruleset *parallel_rules_clone(ruleset *rs)
{
	ruleset *copy = xmalloc(sizeof *copy);
	ruleset_clone(copy, rs);
	return copy;
}

void parallel_rules_fold(ruleset *rs, ruleset *copy)
{
	ruleset_absorb(rs, copy);
	ruleset_free(copy);
	free(copy);
}

/* Each reading thread matches with a copy of the rules (the pool calls
 * thread_end under its lock). */
static void *thread_begin(void *ctx)
{
	return parallel_rules_clone(((run *)ctx)->rs);
}

static void thread_end(void *ctx, void *state)
{
	parallel_rules_fold(((run *)ctx)->rs, state);
}

/* Reads one item into its own model, its inputs in order. */
static void item_read(void *ctx, size_t i, void *state)
{
	run *r = ctx;
	item *it = &r->items[i];
	parallel_model_like(&it->m, &r->proto);
	if (it->part) {
		it->rc = read_part(it, r->paths[it->file], state);
		return;
	}
	strbuf e = { 0 };
	for (int f = it->file; f < it->file + it->nfiles; f++) {
		sb_clear(&e);
		if (input_read_into(r->paths[f], f, &it->m, state, NULL, &r->kind[f], &e) != 0) {
			sb_add(&it->err, e.p ? e.p : "", e.p ? e.n + 1 : 1);
			it->nerr++;
			it->rc = -1;
		}
	}
	sb_free(&e);
}

static void item_merge(void *ctx, size_t i)
{
	run *r = ctx;
	item *it = &r->items[i];
	/* one message per input, even when several of its parts fail */
	if (it->rc != 0 && (!it->part || r->last_failed != it->file)) {
		const char *msg = it->err.p;
		for (size_t k = 0; k < it->nerr; k++, msg += strlen(msg) + 1) {
			r->err(r->ctx, msg);
			r->failed++;
		}
		r->last_failed = it->file + it->nfiles - 1;
	}
	model_merge_take(r->m, &it->m);
	sb_free(&it->err);
}

int parallel_cpus(void)
{
	long n = sysconf(_SC_NPROCESSORS_ONLN);
	return n > 0 ? (int)n : 1;
}

/* The first byte after the newline at or after `at`, or the end. */
static off_t next_line(int fd, off_t at, off_t size)
{
	char buf[4096];
	while (at < size) {
		ssize_t r = pread(fd, buf, sizeof buf, at);
		if (r <= 0)
			return size;
		const char *nl = memchr(buf, '\n', (size_t)r);
		if (nl)
			return at + (nl - buf) + 1;
		at += r;
	}
	return size;
}

/* True when the lines right before `pos` are a c10 message that goes on
 * (join_opens_msg, then join_bare lines): a cut there would give its next
 * lines to another process than reading the whole file does. */
static bool in_message(int fd, off_t pos, char *buf)
{
	off_t from = pos > JOIN_MAX_BYTES ? pos - JOIN_MAX_BYTES : 0;
	ssize_t r = pos > from ? pread(fd, buf, (size_t)(pos - from), from) : 0;
	if (r <= 0)
		return false;
	size_t end = (size_t)r;
	for (int k = 0; k < 64 && end > 0; k++) {
		size_t n = end;
		if (buf[n - 1] == '\n')
			n--;
		const char *nl = n ? memrchr(buf, '\n', n) : NULL;
		size_t at = nl ? (size_t)(nl - buf) + 1 : 0;
		if (!nl && from > 0)
			return false; /* a line longer than the window: no message line */
		slice one = { buf + at, n - at };
		if (one.n && one.p[one.n - 1] == '\r')
			one.n--;
		/* empty lines say nothing: the reader skips them too */
		if (one.n && !join_bare(one))
			return join_opens_msg(one);
		end = at;
	}
	return false;
}

/* A cut point at or after `at` where no line is continued: the line after
 * it does not read as the rest of the one before (a wrapped paste), so a
 * part decides its joins as reading the whole file would. */
static off_t safe_cut(int fd, off_t at, off_t size)
{
	char buf[JOIN_MAX_BYTES];
	off_t pos = next_line(fd, at, size);
	bool in_msg = in_message(fd, pos, buf);
	for (int k = 0; k < 1024 && pos < size; k++) {
		ssize_t r = pread(fd, buf, sizeof buf, pos);
		if (r <= 0)
			break;
		const char *nl = memchr(buf, '\n', (size_t)r);
		size_t n = nl ? (size_t)(nl - buf) : (size_t)r;
		if (n && buf[n - 1] == '\r')
			n--;
		/* nor the rest of a c10 message whose first line alone names the rank */
		if (!join_continues((slice){ buf, n }, SLICE_NONE) && !(in_msg && (!n || join_bare((slice){ buf, n }))))
			break;
		pos = next_line(fd, pos, size);
	}
	return pos;
}

/* Into how many parts to cut a plain (not compressed) regular file: more
 * than one when it is big enough to be worth cutting. *size is the size
 * of any regular file, 0 for the rest. */
static size_t plan_parts(const char *path, int jobs, off_t chunk, off_t *size)
{
	*size = 0;
	if (strcmp(path, "-") == 0)
		return 1;
	struct stat st;
	if (stat(path, &st) != 0 || !S_ISREG(st.st_mode))
		return 1;
	*size = st.st_size;
	if (st.st_size < 2 * chunk)
		return 1;
	int fd = open(path, O_RDONLY | O_CLOEXEC);
	unsigned char magic[4] = { 0 };
	bool plain = fd >= 0 && pread(fd, magic, 4, 0) == 4 && !(magic[0] == 0x1f && magic[1] == 0x8b) &&
		     !(magic[0] == 0x28 && magic[1] == 0xb5 && magic[2] == 0x2f && magic[3] == 0xfd);
	if (fd >= 0)
		close(fd);
	if (!plain)
		return 1;
	size_t n = (size_t)(st.st_size / chunk);
	size_t most = (size_t)jobs * 4;
	return n < most ? n : most;
}

/* Reads the inputs that are not logs, kind by kind, in input order. */
static size_t read_structured(char *const *paths, const structured_kind *const *kind, size_t n, size_t base,
			      model *m, parallel_error_fn err, void *ctx)
{
	size_t failed = 0;
	strbuf e = { 0 };
	for (size_t i = 0; i < n; i++) {
		if (!kind[i])
			continue;
		/* the first input of a kind reads all of that kind */
		bool first = true;
		for (size_t k = 0; k < i && first; k++)
			first = kind[k] != kind[i];
		if (!first)
			continue;
		const structured_kind *sk = kind[i];
		void *st = sk->begin();
		for (size_t k = i; k < n; k++) {
			if (kind[k] != sk)
				continue;
			sb_clear(&e);
			if (sk->add(st, paths[k], m->in[base + k].name, &e) != 0) {
				err(ctx, e.p);
				failed++;
			}
		}
		sk->end(st, m);
	}
	sb_free(&e);
	return failed;
}

static void add_item(item **v, size_t *n, size_t *cap, item it)
{
	grow(v, cap, *n, sizeof **v);
	(*v)[(*n)++] = it;
}

void parallel_choose_gate(ruleset *rs, uint64_t bytes)
{
	const char *e = getenv("NCCLOG_GATE");
	if (e && strcmp(e, "own") == 0)
		return;
	ruleset_accelerate(rs, e && strcmp(e, "vectorscan") == 0 ? UINT64_MAX : bytes);
}

size_t parallel_read(char *const *paths, size_t n, int jobs, model *m, ruleset *rs, redactor *rd,
		     parallel_error_fn err, void *ctx)
{
	size_t failed = 0, base = m->nin;
	strbuf name = { 0 };
	for (size_t i = 0; i < n; i++) {
		sb_clear(&name);
		input_name(paths[i], rd, &name);
		model_add_input(m, name.p);
	}
	sb_free(&name);
	/* what is not a log is told by the first chunk its reader reads (a
	 * file is opened once), and read after the logs */
	const structured_kind **dump = xcalloc(n ? n : 1, sizeof *dump);
	if (jobs <= 1 || rd || base) {
		/* the sizes only where they can change the engine */
		uint64_t bytes = 0;
		struct stat st;
		for (size_t i = 0; i < n && ruleset_accelerable(rs); i++)
			if (stat(paths[i], &st) == 0 && S_ISREG(st.st_mode))
				bytes += (uint64_t)st.st_size;
		parallel_choose_gate(rs, bytes);
		strbuf e = { 0 };
		for (size_t i = 0; i < n; i++) {
			sb_clear(&e);
			if (input_read_into(paths[i], (int)(base + i), m, rs, rd, &dump[i], &e) != 0) {
				err(ctx, e.p);
				failed++;
			}
		}
		sb_free(&e);
		failed += read_structured(paths, dump, n, base, m, err, ctx);
		free(dump);
		return failed;
	}
	const char *env = getenv("NCCLOG_CHUNK_BYTES");
	off_t chunk = env && atoll(env) > 0 ? (off_t)atoll(env) : (off_t)CHUNK_MIN;
	off_t *sizes = xcalloc(n, sizeof *sizes);
	size_t *nparts = xcalloc(n, sizeof *nparts);
	off_t total = 0;
	for (size_t i = 0; i < n; i++) {
		nparts[i] = plan_parts(paths[i], jobs, chunk, &sizes[i]);
		total += sizes[i];
	}
	/* a batch is small enough that each thread gets many */
	off_t batch = total / ((off_t)jobs * ITEMS_PER_JOB);
	if (batch > (off_t)BATCH_BYTES)
		batch = BATCH_BYTES;
	item *items = NULL;
	size_t nitems = 0, cap = 0;
	for (size_t i = 0; i < n; i++) {
		off_t size = sizes[i];
		size_t parts = nparts[i];
		if (parts <= 1) {
			item *last = nitems ? &items[nitems - 1] : NULL;
			if (last && !last->part && last->nfiles < BATCH_FILES && last->bytes + size <= batch) {
				last->nfiles++;
				last->bytes += size;
			} else {
				add_item(&items, &nitems, &cap, (item){ .file = (int)i, .nfiles = 1, .bytes = size });
			}
			continue;
		}
		/* a big file is told before it is cut */
		if ((dump[i] = structured_sniff(paths[i])))
			continue;
		int fd = open(paths[i], O_RDONLY | O_CLOEXEC);
		off_t start = 0;
		for (size_t k = 1; k <= parts && fd >= 0; k++) {
			off_t end = k == parts ? size : safe_cut(fd, size / (off_t)parts * (off_t)k, size);
			if (end > start)
				add_item(&items, &nitems, &cap,
					 (item){ .file = (int)i, .nfiles = 1, .part = true, .start = start, .end = end });
			start = end;
		}
		if (fd >= 0)
			close(fd);
		else
			add_item(&items, &nitems, &cap, (item){ .file = (int)i, .nfiles = 1 });
	}
	free(sizes);
	free(nparts);
	parallel_choose_gate(rs, (uint64_t)total); /* before the threads' clones */
	/* The merging thread reads too, whenever the item it merges next is
	 * not done: jobs threads in all. */
	static const pool_ops ops = { thread_begin, thread_end, item_read, item_merge, NULL };
	run r = { .paths = paths, .kind = dump, .items = items, .m = m, .proto = *m, .rs = rs, .err = err, .ctx = ctx,
		  .last_failed = -1 };
	pool_run(nitems, jobs, (size_t)jobs * WINDOW_PER_JOB, &ops, &r);
	failed += r.failed;
	free(items);
	failed += read_structured(paths, dump, n, base, m, err, ctx);
	free(dump);
	return failed;
}
