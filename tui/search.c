#include "search.h"

#define PCRE2_CODE_UNIT_WIDTH 8
#include <pcre2.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#define READ_SIZE (256u * 1024u)
/* A pattern that backtracks without end costs one line, not the screen. */
#define MATCH_LIMIT 100000u
#define DEPTH_LIMIT 10000u

struct search {
	char *pattern;
	pcre2_code *re;
	pcre2_match_data *md;
	pcre2_match_context *mctx;
	char *buf;
};

/* Smart case: a capital letter written as such (not "\S", "\D") asks for
 * an exact match. */
static bool has_capital(const char *p)
{
	for (; *p; p++) {
		if (*p == '\\' && p[1]) {
			p++;
			continue;
		}
		if (*p >= 'A' && *p <= 'Z')
			return true;
	}
	return false;
}

search *search_new(const char *pattern, strbuf *err)
{
	int code;
	PCRE2_SIZE at;
	uint32_t flags = has_capital(pattern) ? 0 : PCRE2_CASELESS;
	pcre2_code *re = pcre2_compile((PCRE2_SPTR)pattern, PCRE2_ZERO_TERMINATED, flags, &code, &at, NULL);
	if (!re) {
		PCRE2_UCHAR msg[256];
		pcre2_get_error_message(code, msg, sizeof msg);
		sb_printf(err, "%s at offset %zu", (const char *)msg, (size_t)at);
		return NULL;
	}
	pcre2_jit_compile(re, PCRE2_JIT_COMPLETE);
	search *s = xcalloc(1, sizeof *s);
	s->pattern = xstrdup(pattern);
	s->re = re;
	s->md = pcre2_match_data_create_from_pattern(re, NULL);
	s->mctx = pcre2_match_context_create(NULL);
	pcre2_set_match_limit(s->mctx, MATCH_LIMIT);
	pcre2_set_depth_limit(s->mctx, DEPTH_LIMIT);
	s->buf = xmalloc(READ_SIZE);
	return s;
}

void search_free(search *s)
{
	if (!s)
		return;
	pcre2_match_data_free(s->md);
	pcre2_match_context_free(s->mctx);
	pcre2_code_free(s->re);
	free(s->pattern);
	free(s->buf);
	free(s);
}

const char *search_pattern(const search *s)
{
	return s->pattern;
}

bool search_match(search *s, slice line, size_t from, size_t *so, size_t *eo)
{
	if (from > line.n)
		return false;
	int rc = pcre2_match(s->re, (PCRE2_SPTR)(line.p ? line.p : ""), line.n, from, 0, s->md, s->mctx);
	if (rc < 0)
		return false;
	PCRE2_SIZE *ov = pcre2_get_ovector_pointer(s->md);
	*so = ov[0];
	*eo = ov[1] < ov[0] ? ov[0] : ov[1]; /* \K can put the end first */
	return true;
}

void search_begin(scan *sc, int file, uint64_t line, int dir)
{
	*sc = (scan){ .dir = dir < 0 ? -1 : 1, .file = file, .start_file = file, .start_line = line, .entered = 1 };
	if (sc->dir > 0) {
		sc->lo = line + 1;
		sc->hi = UINT64_MAX;
	} else {
		sc->hi = line;
	}
	sc->line = 0; /* the window is not positioned yet */
}

/* Lines of input f that count: after the scan came back to its first
 * input, only those on the far side of where it began. */
static uint64_t floor_line(const scan *sc, size_t n)
{
	return sc->entered > n && sc->dir < 0 ? sc->start_line : 1;
}

static uint64_t ceil_line(const scan *sc, const lineidx *x, size_t n)
{
	uint64_t hi = x->lines ? x->lines + 1 : UINT64_MAX;
	if (sc->entered > n && sc->dir > 0 && sc->start_line + 1 < hi)
		hi = sc->start_line + 1;
	return hi;
}

/* Moves to the next input in the scan's direction; false when every input
 * was read. */
static bool next_input(scan *sc, lineidx *idx, size_t n)
{
	if (sc->entered > n)
		return false;
	int f = sc->file + sc->dir;
	if (f < 0 || (size_t)f >= n) {
		f = sc->dir > 0 ? 0 : (int)n - 1;
		sc->wrapped = true;
	}
	sc->file = f;
	sc->entered++;
	sc->best = 0;
	sc->skipping = false;
	sc->line = 0;
	if (sc->dir > 0) {
		sc->lo = 1;
		sc->hi = UINT64_MAX;
	} else {
		sc->hi = idx[f].lines ? idx[f].lines + 1 : UINT64_MAX;
	}
	return true;
}

/* Positions the scan at the start of its window; false when the window
 * holds no line. */
static bool position(scan *sc, lineidx *x, size_t n)
{
	if (sc->dir > 0) {
		sc->hi = ceil_line(sc, x, n);
		if (sc->lo >= sc->hi)
			return false;
		if (sc->lo == 1) {
			sc->off = 0;
		} else if (lineidx_seek(x, sc->lo, &sc->off) != 0) {
			return false;
		}
		sc->line = sc->lo;
		return true;
	}
	if (sc->hi == UINT64_MAX) {
		/* lines not counted (a file still growing): to its end */
		sc->lo = 1;
		sc->off = 0;
		sc->line = 1;
		return true;
	}
	if (sc->hi <= floor_line(sc, n) || sc->hi <= 1)
		return false;
	lineidx_checkpoint(x, sc->hi - 1, &sc->lo, &sc->off);
	sc->line = sc->lo;
	sc->best = 0;
	return true;
}

/* Tests one line (its head) of the window. */
static bool test_line(search *s, const scan *sc, size_t n, const char *p, size_t len)
{
	if (sc->line < floor_line(sc, n))
		return false;
	if (len > LINEIDX_MAX_READ)
		len = LINEIDX_MAX_READ;
	if (len && p[len - 1] == '\r')
		len--;
	size_t so, eo;
	return search_match(s, (slice){ p, len }, 0, &so, &eo);
}

/* Reads the window on; 1 on a forward match, 0 when the budget is spent,
 * -1 at the window's end. */
static int read_window(search *s, scan *sc, lineidx *x, size_t n, int fd, size_t budget, size_t *used)
{
	while (sc->line < sc->hi) {
		if (*used >= budget)
			return 0;
		ssize_t got = pread(fd, s->buf, READ_SIZE, (off_t)sc->off);
		if (got <= 0)
			return -1;
		*used += (size_t)got;
		sc->bytes += (uint64_t)got;
		if (x->limit && sc->off + (uint64_t)got > x->limit)
			got = sc->off >= x->limit ? 0 : (ssize_t)(x->limit - sc->off);
		if (got <= 0)
			return -1;
		const char *p = s->buf, *end = s->buf + got;
		bool full = (size_t)got == READ_SIZE;
		while (p < end && sc->line < sc->hi) {
			const char *nl = memchr(p, '\n', (size_t)(end - p));
			if (!nl && full) {
				if (p == s->buf) {
					/* a line longer than a read: its head, then skip to its end */
					if (!sc->skipping && test_line(s, sc, n, p, (size_t)(end - p))) {
						sc->skipping = true;
						if (sc->dir > 0)
							return 1;
						sc->best = sc->line;
					}
					sc->skipping = true;
					p = end;
				}
				break; /* read again from p */
			}
			const char *stop = nl ? nl : end;
			bool hit = !sc->skipping && test_line(s, sc, n, p, (size_t)(stop - p));
			sc->skipping = false;
			if (hit && sc->dir > 0) {
				sc->off += (uint64_t)(p - s->buf);
				return 1;
			}
			if (hit)
				sc->best = sc->line;
			sc->line++;
			p = nl ? nl + 1 : end;
		}
		sc->off += (uint64_t)(p - s->buf);
		if (!full && p >= end)
			return -1; /* the end of the file */
	}
	return -1;
}

int search_step(search *s, scan *sc, lineidx *idx, size_t n, size_t budget, int *file, uint64_t *line)
{
	if (!n)
		return -1;
	size_t used = 0;
	for (;;) {
		lineidx *x = &idx[sc->file];
		int fd = lineidx_kept(x) ? lineidx_fd(x) : -1;
		if (fd < 0 || (!sc->line && !position(sc, x, n))) {
			if (!next_input(sc, idx, n))
				return -1;
			continue;
		}
		int rc = read_window(s, sc, x, n, fd, budget, &used);
		if (rc == 0)
			return 0;
		if (rc > 0) {
			*file = sc->file;
			*line = sc->line;
			return 1;
		}
		if (sc->dir < 0 && sc->best) {
			*file = sc->file;
			*line = sc->best;
			return 1;
		}
		if (sc->dir < 0 && sc->lo > 1 && sc->hi != UINT64_MAX) {
			/* the window before this one */
			sc->hi = sc->lo;
			sc->line = 0;
			continue;
		}
		if (!next_input(sc, idx, n))
			return -1;
	}
}
