#include "follow.h"

#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#define CHUNK (64u * 1024u)

/* A file read again from its start is a new input: evidence names the
 * generation it cites, "train.log (generation 2)". */
static void feed_start(follower *f, feed *d)
{
	const char *name = strcmp(d->path, "-") == 0 ? "<stdin>" : d->path;
	d->generation++;
	strbuf gen = { 0 };
	if (d->generation > 1)
		sb_printf(&gen, "%s (generation %d)", name, d->generation);
	pipeline_begin(&d->p, f->m, f->rs, model_add_input(f->m, gen.p ? gen.p : name));
	sb_free(&gen);
	d->open_pipeline = true;
}

static void notice(follower *f, feed *d, follow_what what)
{
	grow(&f->notices, &f->noticecap, f->nnotices, sizeof *f->notices);
	f->notices[f->nnotices++] = (follow_notice){ what, d->path, d->generation, d->p.file };
}

const follow_notice *follower_notices(follower *f, size_t *n)
{
	*n = f->nnotices;
	f->nnotices = 0;
	return f->notices;
}

const char *follow_what_name(follow_what w)
{
	return w == FOLLOW_TRUNCATED ? "truncated" : w == FOLLOW_ROTATED ? "rotated" : "appeared";
}

static void feed_stop(feed *d)
{
	if (d->open_pipeline)
		pipeline_end(&d->p);
	d->open_pipeline = false;
}

int follower_open(follower *f, model *m, ruleset *rs, char **paths, size_t n, bool follow, strbuf *err)
{
	static char *stdin_only[] = { "-" };
	*f = (follower){ 0 };
	f->m = m;
	f->rs = rs;
	f->follow = follow;
	f->buf = xmalloc(CHUNK);
	if (!n) {
		paths = stdin_only;
		n = 1;
	}
	f->v = xcalloc(n, sizeof *f->v);
	f->n = n;
	for (size_t i = 0; i < n; i++) {
		feed *d = &f->v[i];
		d->path = paths[i];
		d->fd = -1;
		if (strcmp(d->path, "-") == 0) {
			d->fd = STDIN_FILENO;
			feed_start(f, d);
			continue;
		}
		struct stat st;
		if (stat(d->path, &st) == 0 && S_ISDIR(st.st_mode)) {
			sb_printf(err, "%s: is a directory", d->path);
			return -1;
		}
		d->fd = open(d->path, O_RDONLY | O_CLOEXEC | O_NONBLOCK);
		if (d->fd < 0 && (!follow || errno != ENOENT)) {
			sb_printf(err, "%s: %s", d->path, strerror(errno));
			return -1;
		}
		if (d->fd >= 0 && fstat(d->fd, &st) == 0) {
			d->dev = st.st_dev;
			d->ino = st.st_ino;
			feed_start(f, d);
		}
	}
	return 0;
}

void follower_close(follower *f)
{
	for (size_t i = 0; i < f->n; i++) {
		feed_stop(&f->v[i]);
		if (f->v[i].fd > STDIN_FILENO)
			close(f->v[i].fd);
	}
	free(f->v);
	free(f->buf);
	free(f->notices);
	*f = (follower){ 0 };
}

int follower_fd(const follower *f)
{
	for (size_t i = 0; i < f->n; i++)
		if (strcmp(f->v[i].path, "-") == 0 && !f->v[i].ended)
			return f->v[i].fd;
	return -1;
}

/* Standard input: what one read gives while poll says there is more. */
static bool step_stdin(follower *f, feed *d, double now, strbuf *err)
{
	bool got = false;
	for (int rounds = 0; rounds < 64; rounds++) {
		struct pollfd pf = { d->fd, POLLIN, 0 };
		if (poll(&pf, 1, 0) <= 0 || !(pf.revents & (POLLIN | POLLHUP)))
			break;
		ssize_t r = read(d->fd, f->buf, CHUNK);
		if (r < 0 && (errno == EINTR || errno == EAGAIN))
			break;
		if (r <= 0) {
			if (r < 0)
				sb_printf(err, "<stdin>: %s\n", strerror(errno));
			d->ended = true;
			feed_stop(d);
			break;
		}
		pipeline_feed(&d->p, f->buf, (size_t)r);
		d->last_data = now;
		got = true;
	}
	return got;
}

/* A file: read to its end; when following, notice truncation, rotation
 * and files that appear. A new file is a new input: its lines count from 1. */
static bool step_file(follower *f, feed *d, double now, strbuf *err)
{
	bool got = false;
	if (f->follow) {
		struct stat st;
		bool exists = stat(d->path, &st) == 0;
		bool replaced = exists && d->fd >= 0 && (st.st_ino != d->ino || st.st_dev != d->dev);
		struct stat cur;
		bool truncated = d->fd >= 0 && fstat(d->fd, &cur) == 0 && cur.st_size < d->off;
		/* truncated and rewritten past the old size: the first bytes differ */
		char head[sizeof d->head];
		if (!truncated && d->fd >= 0 && d->nhead &&
		    (pread(d->fd, head, d->nhead, 0) != (ssize_t)d->nhead || memcmp(head, d->head, d->nhead) != 0))
			truncated = true;
		if (truncated) {
			d->nhead = 0;
			lseek(d->fd, 0, SEEK_SET);
			d->off = 0;
			feed_stop(d);
			feed_start(f, d);
			notice(f, d, FOLLOW_TRUNCATED);
		}
		if (replaced || (d->fd < 0 && exists)) {
			bool was_open = d->fd >= 0 || d->generation > 0;
			if (d->fd >= 0) {
				/* rotated: the rest of the old file first */
				for (ssize_t r; (r = read(d->fd, f->buf, CHUNK)) > 0;)
					pipeline_feed(&d->p, f->buf, (size_t)r);
				close(d->fd);
				feed_stop(d);
			}
			d->fd = open(d->path, O_RDONLY | O_CLOEXEC | O_NONBLOCK);
			if (d->fd >= 0) {
				d->dev = st.st_dev;
				d->ino = st.st_ino;
				d->off = 0;
				d->nhead = 0;
				feed_start(f, d);
				notice(f, d, was_open ? FOLLOW_ROTATED : FOLLOW_APPEARED);
			}
		}
	}
	if (d->fd < 0)
		return false;
	for (int rounds = 0; rounds < 64; rounds++) {
		ssize_t r = read(d->fd, f->buf, CHUNK);
		if (r < 0 && (errno == EINTR || errno == EAGAIN))
			break;
		if (r < 0) {
			sb_printf(err, "%s: %s\n", d->path, strerror(errno));
			d->ended = true;
			break;
		}
		if (r == 0) {
			if (!f->follow) {
				d->ended = true;
				feed_stop(d);
			}
			break;
		}
		if (d->off == 0) {
			d->nhead = (size_t)r < sizeof d->head ? (size_t)r : sizeof d->head;
			memcpy(d->head, f->buf, d->nhead);
		}
		d->off += r;
		pipeline_feed(&d->p, f->buf, (size_t)r);
		d->last_data = now;
		got = true;
	}
	return got;
}

bool follower_step(follower *f, double now, double flush_after, strbuf *err)
{
	bool got = false;
	for (size_t i = 0; i < f->n; i++) {
		feed *d = &f->v[i];
		if (d->ended)
			continue;
		got |= strcmp(d->path, "-") == 0 ? step_stdin(f, d, now, err) : step_file(f, d, now, err);
		if (d->open_pipeline)
			pipeline_settle(&d->p);
		if (d->open_pipeline && pipeline_pending(&d->p) && now - d->last_data >= flush_after) {
			pipeline_flush(&d->p);
			got = true;
		}
	}
	return got;
}

bool follower_ended(const follower *f)
{
	for (size_t i = 0; i < f->n; i++)
		if (!f->v[i].ended)
			return false;
	return true;
}
