/* Records to processes: the shortcut that reuses the process of the
 * record before gives what the full lookup gives. A host that is a prefix
 * of another, another pid, another file, another launcher stream and a
 * process that takes over the lines before it each resolve as on their
 * own; the streams of every file and tag point at the process, also
 * after a merge moved them. */
#include "../../model/model.h"
#include "check.h"

#include <stdlib.h>

typedef struct feed {
	model *m;
	int file;
	uint64_t line;
} feed;

/* Feeds one line as a record; returns its process. */
static int put(feed *f, const char *text)
{
	record r;
	record_parse(slice_from(text), &r);
	f->line++;
	model_record(f->m, f->file, f->line, 0, &r, NULL);
	int pi = f->m->cur_proc;
	model_record_end(f->m);
	return pi;
}

/* The process's last n records are these lines, oldest first. */
static bool recent_is(const model *m, int pi, int file, const uint64_t *lines, unsigned n)
{
	const proc *p = &m->procs[pi];
	if (p->nrecent < n)
		return false;
	for (unsigned k = 0; k < n; k++) {
		const lineref *l = &p->recent[(p->nrecent - n + k) % PROC_RECENT];
		if (l->file != file || l->line != lines[k])
			return false;
	}
	return true;
}

static int streams_of(const model *m, int file, int pi)
{
	int n = 0;
	for (size_t i = 0; i < m->streamcap; i++)
		n += m->streams[i].proc == pi && m->streams[i].file == file;
	return n;
}

int main(void)
{
	checks cc = { 0 }, *c = &cc;
	model m;
	model_init(&m, NULL);
	int f0 = model_add_input(&m, "a.log"), f1 = model_add_input(&m, "b.log");
	int f2 = model_add_input(&m, "c.log"), f3 = model_add_input(&m, "d.log");

	feed a = { &m, f0, 0 };
	int p0 = put(&a, "h1:10:10 [0] NCCL INFO a");
	CHECK(c, put(&a, "h1:10:10 [0] NCCL INFO b") == p0, "the same rank again");
	int p1 = put(&a, "h10:10:10 [0] NCCL INFO c");
	CHECK(c, p1 >= 0 && p1 != p0, "a host the first is a prefix of: %d, %d", p0, p1);
	CHECK(c, put(&a, "h1:10:11 [0] NCCL INFO d") == p0, "another thread of the first process");
	int p2 = put(&a, "h1:11:11 [1] NCCL INFO e");
	CHECK(c, p2 >= 0 && p2 != p0 && p2 != p1, "another pid: %d", p2);
	CHECK(c, put(&a, "h1:10:10 [0] NCCL INFO f") == p0, "the first again");
	CHECK(c, m.nprocs == 3, "three processes, %zu", m.nprocs);
	CHECK(c, recent_is(&m, p0, f0, (const uint64_t[]){ 1, 2, 4, 6 }, 4), "the first's lines are 1, 2, 4, 6");
	CHECK(c, recent_is(&m, p1, f0, (const uint64_t[]){ 3 }, 1) && m.procs[p1].records == 1, "the second's line is 3");
	CHECK(c, strcmp(model_host(&m, p1), "h10") == 0, "host %s", model_host(&m, p1));

	/* the same process in another file: that file's lines point at it too */
	feed b = { &m, f1, 0 };
	CHECK(c, put(&b, "h1:10:10 [0] NCCL INFO g") == p0, "the same host and pid in another file");
	CHECK(c, model_stream_proc(&m, f1, -1) == p0, "the other file's untagged lines: %d", model_stream_proc(&m, f1, -1));

	/* one process under two launcher tags: both streams are its */
	feed t = { &m, f2, 0 };
	int p3 = put(&t, "x1: h2:20:20 [0] NCCL INFO h");
	CHECK(c, put(&t, "x2: h2:20:20 [0] NCCL INFO i") == p3, "one process, two tags");
	CHECK(c, put(&t, "x2: h2:20:20 [0] NCCL INFO j") == p3, "the second tag again");
	CHECK(c, streams_of(&m, f2, p3) == 3, "its streams: two tags and the untagged lines, %d", streams_of(&m, f2, p3));

	/* lines without NCCL's prefix, then the process that wrote them */
	feed d = { &m, f3, 0 };
	size_t before = m.nprocs;
	int anon = put(&d, "starting the job");
	CHECK(c, anon >= 0 && m.procs[anon].pid < 0, "an anonymous process for the first line");
	CHECK(c, put(&d, "h3:30:30 [0] NCCL INFO k") == anon, "NCCL's prefix takes it over");
	CHECK(c, put(&d, "h3:30:30 [0] NCCL INFO l") == anon, "and keeps it");
	CHECK(c, m.nprocs == before + 1 && m.procs[anon].pid == 30, "one process more, pid %ld", m.procs[anon].pid);
	CHECK(c, put(&a, "h1:10:10 [0] NCCL INFO m") == p0, "back to the first file");

	/* a merge gives the first file's lines to another process: the next
	 * line of the first one takes them back, as it would without a merge */
	model src;
	model_init(&src, NULL);
	model_borrow_inputs(&src, &m);
	feed s = { &src, f0, 100 };
	put(&s, "h1:11:11 [1] NCCL INFO n");
	model_merge(&m, &src);
	model_free(&src);
	CHECK(c, model_stream_proc(&m, f0, -1) == p2, "after the merge the untagged lines are the other's");
	CHECK(c, put(&a, "h1:10:10 [0] NCCL INFO o") == p0, "the first again after the merge");
	CHECK(c, model_stream_proc(&m, f0, -1) == p0, "and its lines: %d", model_stream_proc(&m, f0, -1));

	model_free(&m);
	return check_done(c, "resolve");
}
