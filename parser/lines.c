#include "lines.h"

#include <stdlib.h>
#include <string.h>

void linesplit_init(linesplit *ls, size_t maxline)
{
	*ls = (linesplit){ 0 };
	ls->max = maxline;
	ls->carry = xmalloc(maxline);
}

void linesplit_free(linesplit *ls)
{
	free(ls->carry);
	*ls = (linesplit){ 0 };
}

static void emit(linesplit *ls, const char *p, size_t n, uint64_t off, bool cut, line_fn fn, void *ctx)
{
	if (n && p[n - 1] == '\r')
		n--;
	line l = { { p, n }, ++ls->lineno, off, cut };
	fn(ctx, &l);
}

void linesplit_feed(linesplit *ls, const char *p, size_t n, line_fn fn, void *ctx)
{
	while (n) {
		const char *nl = memchr(p, '\n', n);
		size_t len = nl ? (size_t)(nl - p) : n;
		if (ls->skipping) {
			if (nl)
				ls->skipping = false;
		} else if (ls->ncarry == 0 && nl && len <= ls->max) {
			emit(ls, p, len, ls->pos, false, fn, ctx);
		} else {
			if (ls->ncarry == 0)
				ls->carry_off = ls->pos;
			size_t room = ls->max - ls->ncarry;
			size_t take = len < room ? len : room;
			memcpy(ls->carry + ls->ncarry, p, take);
			ls->ncarry += take;
			if (take < len || (!nl && ls->ncarry == ls->max)) {
				/* Too long: emit the head now, skip the rest. */
				emit(ls, ls->carry, ls->ncarry, ls->carry_off, true, fn, ctx);
				ls->ncarry = 0;
				ls->skipping = !nl;
			} else if (nl) {
				emit(ls, ls->carry, ls->ncarry, ls->carry_off, false, fn, ctx);
				ls->ncarry = 0;
			}
		}
		if (!nl) {
			ls->pos += n;
			break;
		}
		n -= len + 1;
		p = nl + 1;
		ls->pos += len + 1;
	}
}

void linesplit_flush(linesplit *ls, line_fn fn, void *ctx)
{
	if (ls->ncarry)
		emit(ls, ls->carry, ls->ncarry, ls->carry_off, false, fn, ctx);
	ls->ncarry = 0;
	ls->skipping = false;
}

bool linesplit_pending(const linesplit *ls)
{
	return ls->ncarry > 0;
}
