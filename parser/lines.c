#include "lines.h"

#include <stdlib.h>
#include <string.h>

/* The carry is as big as the longest partial line so far, up to the
 * limit: most inputs are read whole in a chunk or two, and a thread pool
 * starts a splitter for every small file. */
#define CARRY_MIN 4096u

void linesplit_init(linesplit *ls, size_t maxline)
{
	*ls = (linesplit){ 0 };
	ls->max = maxline;
}

static void carry_room(linesplit *ls, size_t need)
{
	if (need <= ls->carrycap)
		return;
	size_t cap = ls->carrycap ? ls->carrycap : CARRY_MIN;
	while (cap < need)
		cap *= 2;
	ls->carrycap = cap < ls->max ? cap : ls->max;
	ls->carry = xrealloc(ls->carry, ls->carrycap);
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
			carry_room(ls, ls->ncarry + take);
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
