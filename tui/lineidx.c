#include "lineidx.h"

#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

void lineidx_init(lineidx *x, const char *path)
{
	*x = (lineidx){ 0 };
	x->path = xstrdup(path);
	x->fd = -1;
	lineidx_mark(x, 1, 0);
}

void lineidx_free(lineidx *x)
{
	if (x->fd >= 0)
		close(x->fd);
	free(x->path);
	free(x->ck);
	*x = (lineidx){ .fd = -1 };
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
	if (!x->path)
		return -1; /* lines not kept */
	if (x->fd < 0)
		x->fd = open(x->path, O_RDONLY | O_CLOEXEC | O_NOCTTY | O_NONBLOCK);
	return x->fd < 0 ? -1 : 0;
}

int lineidx_seek(lineidx *x, uint64_t line, uint64_t *off)
{
	if (line == 0 || (x->lines && line > x->lines) || ensure_open(x) != 0)
		return -1;
	/* the last checkpoint at or before the line */
	size_t lo = 0, hi = x->nck;
	while (hi - lo > 1) {
		size_t mid = (lo + hi) / 2;
		if (x->ck[mid].line <= line)
			lo = mid;
		else
			hi = mid;
	}
	uint64_t at = x->ck[lo].line, pos = x->ck[lo].off;
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
