/* The line splitter: CRLF, torn chunks, cut long lines, no newline at end. */
#include <stdlib.h>

#include "../../parser/lines.h"
#include "check.h"

typedef struct seen {
	char text[16][64];
	bool cut[16];
	uint64_t no[16], off[16];
	int n;
} seen;

static void collect(void *ctx, const line *l)
{
	seen *s = ctx;
	if (s->n < 16) {
		snprintf(s->text[s->n], 64, "%.*s", (int)(l->text.n < 63 ? l->text.n : 63), l->text.p);
		s->cut[s->n] = l->cut;
		s->no[s->n] = l->no;
		s->off[s->n] = l->off;
	}
	s->n++;
}

/* Lengths of the lines seen, and whether each holds the bytes of the text
 * it was cut from (a letter a line position advances by one). */
typedef struct sizes {
	size_t len[4];
	bool cut[4], same[4];
	int n;
} sizes;

static void measure(void *ctx, const line *l)
{
	sizes *z = ctx;
	if (z->n < 4) {
		bool same = true;
		for (size_t i = 1; i < l->text.n; i++)
			same = same && (l->text.p[i] - 'a' + 26) % 26 == (l->text.p[i - 1] - 'a' + 27) % 26;
		z->len[z->n] = l->text.n;
		z->cut[z->n] = l->cut;
		z->same[z->n] = same;
	}
	z->n++;
}

int main(void)
{
	checks cc = { 0 }, *c = &cc;
	linesplit ls;
	seen s = { 0 };
	linesplit_init(&ls, 8);
	const char *in = "ab\r\ncd\nefghijklmnop\nq";
	/* fed one byte at a time: every line torn across chunks */
	for (const char *p = in; *p; p++)
		linesplit_feed(&ls, p, 1, collect, &s);
	CHECK(c, linesplit_pending(&ls), "q is pending");
	linesplit_flush(&ls, collect, &s);
	CHECK(c, s.n == 4, "4 lines, got %d", s.n);
	CHECK(c, strcmp(s.text[0], "ab") == 0, "CR stripped: '%s'", s.text[0]);
	CHECK(c, strcmp(s.text[1], "cd") == 0, "'%s'", s.text[1]);
	CHECK(c, strcmp(s.text[2], "efghijkl") == 0 && s.cut[2], "cut at 8: '%s'", s.text[2]);
	CHECK(c, strcmp(s.text[3], "q") == 0 && s.no[3] == 4, "last line numbered 4: %llu", (unsigned long long)s.no[3]);
	CHECK(c, s.off[0] == 0 && s.off[1] == 4 && s.off[2] == 7 && s.off[3] == 20, "offsets %llu %llu %llu %llu",
	      (unsigned long long)s.off[0], (unsigned long long)s.off[1], (unsigned long long)s.off[2],
	      (unsigned long long)s.off[3]);
	linesplit_free(&ls);

	/* the same in one chunk */
	memset(&s, 0, sizeof s);
	linesplit_init(&ls, 8);
	linesplit_feed(&ls, in, strlen(in), collect, &s);
	linesplit_flush(&ls, collect, &s);
	CHECK(c, s.n == 4 && strcmp(s.text[2], "efghijkl") == 0 && s.cut[2], "one chunk");
	CHECK(c, s.off[1] == 4 && s.off[2] == 7 && s.off[3] == 20, "offsets in one chunk");
	linesplit_free(&ls);

	/* a long line without a newline, then more: bounded, marked once */
	memset(&s, 0, sizeof s);
	linesplit_init(&ls, 8);
	char big[1000];
	memset(big, 'x', sizeof big);
	for (int i = 0; i < 100; i++)
		linesplit_feed(&ls, big, sizeof big, collect, &s);
	linesplit_feed(&ls, "\nok\n", 4, collect, &s);
	CHECK(c, s.n == 2 && s.cut[0] && strcmp(s.text[1], "ok") == 0 && s.no[1] == 2, "long line: %d lines", s.n);
	CHECK(c, s.off[1] == 100001, "offset after a cut line: %llu", (unsigned long long)s.off[1]);
	linesplit_free(&ls);

	/* the carry grows with the partial lines it holds, up to the limit:
	 * a line torn over many chunks comes whole, a longer one is cut there */
	static char text[100002];
	for (size_t i = 0; i < sizeof text; i++)
		text[i] = (char)('a' + i % 26);
	text[30000] = '\n';
	text[100001] = '\n';
	sizes z = { 0 };
	linesplit_init(&ls, 1 << 16);
	for (size_t at = 0; at < sizeof text; at += 333)
		linesplit_feed(&ls, text + at, sizeof text - at < 333 ? sizeof text - at : 333, measure, &z);
	CHECK(c, z.n == 2, "two lines: %d", z.n);
	CHECK(c, z.len[0] == 30000 && !z.cut[0] && z.same[0], "a torn line comes whole: %zu bytes", z.len[0]);
	CHECK(c, z.len[1] == 1 << 16 && z.cut[1] && z.same[1], "a longer one is cut at the limit: %zu bytes", z.len[1]);
	CHECK(c, ls.carrycap <= 1 << 16, "the carry stays within the limit: %zu", ls.carrycap);
	linesplit_free(&ls);
	return check_done(c, "lines");
}
