#include "lineidx.h"

#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

void lineidx_init(lineidx *x, const char *path)
{
	*x = (lineidx){ .fd = -1, .kept = true };
	x->path = xstrdup(path);
	lineidx_mark(x, 1, 0);
}

void lineidx_init_fd(lineidx *x, int fd)
{
	*x = (lineidx){ .fd = fd, .kept = fd >= 0 };
	lineidx_mark(x, 1, 0);
}

void lineidx_init_none(lineidx *x)
{
	*x = (lineidx){ .fd = -1 };
}

void lineidx_free(lineidx *x)
{
	if (x->fd >= 0)
		close(x->fd);
	free(x->path);
	free(x->ck);
	*x = (lineidx){ .fd = -1 };
}

bool lineidx_kept(const lineidx *x)
{
	return x->kept;
}

void lineidx_mark(lineidx *x, uint64_t line, uint64_t off)
{
	if (x->nck && x->ck[x->nck - 1].line >= line)
		return;
	grow(&x->ck, &x->ckcap, x->nck, sizeof *x->ck);
	x->ck[x->nck++] = (struct lineck){ line, off };
}

static int ensure_open(lineidx *x)
{
	if (!x->kept)
		return -1;
	if (x->fd < 0 && x->path)
		x->fd = open(x->path, O_RDONLY | O_CLOEXEC | O_NOCTTY | O_NONBLOCK);
	return x->fd < 0 ? -1 : 0;
}

int lineidx_fd(lineidx *x)
{
	return ensure_open(x) == 0 ? x->fd : -1;
}

void lineidx_checkpoint(const lineidx *x, uint64_t line, uint64_t *ck_line, uint64_t *ck_off)
{
	*ck_line = 1;
	*ck_off = 0;
	size_t lo = 0, hi = x->nck;
	if (!hi || x->ck[0].line > line)
		return;
	while (hi - lo > 1) {
		size_t mid = (lo + hi) / 2;
		if (x->ck[mid].line <= line)
			lo = mid;
		else
			hi = mid;
	}
	*ck_line = x->ck[lo].line;
	*ck_off = x->ck[lo].off;
}

int lineidx_seek(lineidx *x, uint64_t line, uint64_t *off)
{
	if (line == 0 || (x->lines && line > x->lines) || ensure_open(x) != 0)
		return -1;
	uint64_t at, pos;
	lineidx_checkpoint(x, line, &at, &pos);
	if (x->memo_line && x->memo_line <= line && x->memo_line > at) {
		at = x->memo_line;
		pos = x->memo_off;
	}
	char buf[65536];
	while (at < line) {
		ssize_t n = pread(x->fd, buf, sizeof buf, (off_t)pos);
		if (n <= 0)
			return -1;
		const char *p = buf, *end = buf + n;
		while (at < line) {
			const char *nl = memchr(p, '\n', (size_t)(end - p));
			if (!nl)
				break;
			at++;
			p = nl + 1;
		}
		pos += (uint64_t)(p - buf);
		if (at < line && p == buf)
			pos += (uint64_t)n; /* no newline in this block: a very long line */
		else if (at < line)
			continue;
	}
	x->memo_line = line;
	x->memo_off = pos;
	*off = pos;
	return 0;
}

int lineidx_read(lineidx *x, uint64_t off, strbuf *b)
{
	if (ensure_open(x) != 0)
		return -1;
	if (x->limit && off >= x->limit)
		return -1; /* past what a spool kept */
	char buf[LINEIDX_MAX_READ];
	ssize_t n = pread(x->fd, buf, sizeof buf, (off_t)off);
	if (n < 0)
		return -1;
	const char *nl = memchr(buf, '\n', (size_t)n);
	size_t len = nl ? (size_t)(nl - buf) : (size_t)n;
	if (len && buf[len - 1] == '\r')
		len--;
	sb_add(b, buf, len);
	return 0;
}

int lineidx_get(lineidx *x, uint64_t line, strbuf *b)
{
	uint64_t off;
	if (lineidx_seek(x, line, &off) != 0)
		return -1;
	return lineidx_read(x, off, b);
}
