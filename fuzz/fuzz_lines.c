/* Fuzzes the line splitter and the record parser: any bytes, any chunking,
 * any line limit. Besides memory errors it checks the contracts that a
 * sanitizer cannot see: every slice of a record lies inside its line, a
 * record never claims more than its line, a line never exceeds the limit
 * and says rightly whether it holds a CR, and the lines do not depend on
 * how the input was chunked. */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "../parser/lines.h"
#include "../parser/record.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

typedef struct sink {
	size_t max;
	uint64_t hash; /* over (no, off, text) of every line */
	uint64_t lines;
	recprefix known; /* the prefix of the record read before */
} sink;

static void must(bool ok)
{
	if (!ok)
		__builtin_trap();
}

static void inside(slice s, slice line)
{
	if (!s.n)
		return;
	must(s.p >= line.p && s.p + s.n <= line.p + line.n);
}

static uint64_t mix(uint64_t h, const void *p, size_t n)
{
	const unsigned char *b = p;
	for (size_t i = 0; i < n; i++)
		h = (h ^ b[i]) * 1099511628211ull;
	return h;
}

static void on_line(void *ctx, const line *l)
{
	sink *k = ctx;
	must(l->text.n <= k->max);
	must(l->cr == (memchr(l->text.p, '\r', l->text.n) != NULL));
	must(l->no == ++k->lines);
	k->hash = mix(k->hash, &l->no, sizeof l->no);
	k->hash = mix(k->hash, &l->off, sizeof l->off);
	k->hash = mix(k->hash, l->text.p, l->text.n);
	size_t off = 0;
	while (off < l->text.n) {
		slice s = { l->text.p + off, l->text.n - off };
		record r;
		size_t n = record_parse(s, &r);
		must(n <= s.n);
		/* the same read from the prefix of the record before */
		record rk;
		must(record_parse_known(s, &rk, &k->known) == n && rk.body.p == r.body.p && rk.body.n == r.body.n &&
		     rk.host.p == r.host.p && rk.host.n == r.host.n && rk.pid == r.pid && rk.tid == r.tid &&
		     rk.dev == r.dev && rk.level == r.level && rk.time == r.time && rk.ln.rank == r.ln.rank &&
		     rk.ln.tag.n == r.ln.tag.n);
		inside(r.text, s);
		inside(r.host, s);
		inside(r.ts, s);
		inside(r.site, s);
		inside(r.func, s);
		inside(r.body, s);
		inside(r.ln.tag, s);
		inside(r.ln.host, s);
		must((unsigned)r.level <= LV_ABORT);
		(void)level_name(r.level);
		off += n ? n : s.n;
	}
	double t;
	size_t tn = timestamp_parse(l->text, &t);
	must(tn <= l->text.n);
	launch ln;
	slice rest = launch_strip(l->text, &ln);
	inside(rest, l->text);
}

/* Feeds data in chunks whose sizes come from seed; returns the line hash. */
static uint64_t split(const uint8_t *data, size_t size, size_t max, uint32_t seed, uint64_t *nlines)
{
	linesplit ls;
	linesplit_init(&ls, max);
	sink k = { max, 14695981039346656037ull, 0 };
	size_t pos = 0;
	while (pos < size) {
		size_t n = size - pos;
		if (seed) {
			seed = seed * 1103515245u + 12345u;
			n = 1 + (seed >> 16) % (2 * max + 1);
			if (n > size - pos)
				n = size - pos;
		}
		linesplit_feed(&ls, (const char *)data + pos, n, on_line, &k);
		pos += n;
	}
	linesplit_flush(&ls, on_line, &k);
	must(!linesplit_pending(&ls));
	linesplit_free(&ls);
	*nlines = k.lines;
	return k.hash;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	if (size < 2)
		return 0;
	/* first byte: the line limit; second: the chunking */
	size_t max = 1 + data[0] % 200;
	uint32_t seed = data[1] | 1u;
	data += 2;
	size -= 2;
	/* own copies, so that reading past the input is caught */
	uint8_t *copy = malloc(size ? size : 1);
	memcpy(copy, data, size);
	uint64_t n1, n2;
	uint64_t whole = split(copy, size, max, 0, &n1);
	uint64_t chunked = split(copy, size, max, seed, &n2);
	must(n1 == n2 && whole == chunked);
	free(copy);
	return 0;
}
