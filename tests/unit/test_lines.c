/* The line splitter: CRLF, torn chunks, cut long lines, no newline at end. */
#include <stdlib.h>
#include <string.h>

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

typedef struct crs {
	bool cr[8];
	size_t len[8];
	int n;
} crs;

static void note_cr(void *ctx, const line *l)
{
	crs *cs = ctx;
	if (cs->n < 8) {
		cs->cr[cs->n] = l->cr;
		cs->len[cs->n] = l->text.n;
	}
	cs->n++;
}

/* Each line passed, and what linesplit_next says comes after it. */
typedef struct ahead {
	const linesplit *ls;
	slice buf, text[8], next[8];
	const char *after[8];
	bool known[8];
	int n;
} ahead;

static void look_ahead(void *ctx, const line *l)
{
	ahead *a = ctx;
	if (a->n < 8) {
		a->text[a->n] = l->text;
		a->known[a->n] = linesplit_next(a->ls, a->buf, l->text, &a->next[a->n]);
		a->after[a->n] = linesplit_after(a->buf, l->text);
	}
	a->n++;
}

/* The line after a line is the one the splitter passes next, CRLF or not,
 * and nothing when the buffer ends first or the next line is too long. */
static void test_next(checks *c)
{
	const char *text = "first line\r\nsecond\n\nthird \r inside\r\n0123456789abcdefghijklm\ntail\nno newline";
	linesplit ls;
	linesplit_init(&ls, 20);
	ahead a = { &ls, slice_from(text), { { 0 } }, { { 0 } }, { NULL }, { false }, 0 };
	linesplit_feed(&ls, text, strlen(text), look_ahead, &a);
	CHECK(c, a.n == 6, "six lines passed: %d", a.n);
	/* after the third: a line past the limit; after the cut one (from the
	 * carry, not the buffer) and the last complete one: nothing */
	static const bool known[6] = { true, true, true, false, false, false };
	int bad = 0;
	for (int i = 0; i < a.n && i < 6; i++)
		if (a.known[i] != known[i] ||
		    (known[i] && (a.next[i].p != a.text[i + 1].p || a.next[i].n != a.text[i + 1].n)))
			bad++;
	CHECK(c, bad == 0, "%d lines told another line ahead than the one passed next", bad);
	/* where the next line starts is known whenever the newline is there:
	 * before the line past the limit and before the last one too; not
	 * after the cut one, passed from the carry */
	const char *after[6] = { text + 12, text + 19, text + 20, text + 36, NULL, text + 65 };
	bad = 0;
	for (int i = 0; i < a.n && i < 6; i++)
		bad += a.after[i] != after[i];
	CHECK(c, bad == 0, "%d lines told another start ahead", bad);
	linesplit_free(&ls);
}

/* The parts of a redrawn line, empty ones too, and none of nothing. */
static void test_parts(checks *c)
{
	slice rest = SLICE_LIT("\rEpoch 0: 10%\r\rEpoch 0: 20%\r"), part;
	const char *want[] = { "", "Epoch 0: 10%", "", "Epoch 0: 20%" };
	size_t n = 0;
	bool same = true;
	while (line_part(&rest, &part)) {
		same &= n < 4 && part.n == strlen(want[n]) && memcmp(part.p, want[n], part.n) == 0;
		n++;
	}
	CHECK(c, same && n == 4, "four parts in order, the empty ones too (%zu)", n);
	rest = SLICE_LIT("no redraw");
	CHECK(c, line_part(&rest, &part) && part.n == 9 && !rest.n && !line_part(&rest, &part), "a line without one is one part");
	rest = SLICE_NONE;
	CHECK(c, !line_part(&rest, &part), "nothing has no part");
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

	/* whether a line holds a '\r', told by the splitter at every place in
	 * and around the 64-byte blocks it reads whole, a trailing CR (CRLF)
	 * left out, also where it ends a block and its newline starts the next;
	 * with the wider pass of the CPU and without */
	int bad = 0;
	for (int pad = 0; pad < 128; pad++) {
		for (int len = 1; len <= 140; len++) {
			int ats[] = { -1, 0, len / 2, len - 1 };
			for (int a = 0; a < 4; a++) {
				char buf[800];
				size_t n = 0;
				for (int i = 0; i < pad; i++)
					buf[n++] = 'z';
				buf[n++] = '\n';
				for (int k = 0; k < 3; k++) {
					for (int i = 0; i < len; i++)
						buf[n++] = i == ats[a] ? '\r' : 'x';
					buf[n++] = k == 1 ? '\r' : 'y';
					buf[n++] = '\n';
				}
				crs cs = { 0 };
				linesplit_init(&ls, 1 << 10);
				ls.avx2 = ls.avx2 && pad < 64;
				linesplit_feed(&ls, buf, n, note_cr, &cs);
				linesplit_free(&ls);
				bool ok = cs.n == 4 && !cs.cr[0] && cs.len[0] == (size_t)pad;
				for (int k = 0; k < 3 && ok; k++)
					ok = cs.cr[k + 1] == (ats[a] >= 0) && cs.len[k + 1] == (size_t)len + (k != 1);
				if (!ok && bad++ < 5)
					CHECK(c, ok, "a CR at %d of a line of %d after %d bytes: %d lines", ats[a], len, pad, cs.n);
			}
		}
	}
	CHECK(c, bad == 0, "%d placements of a CR told wrongly", bad);
	test_next(c);
	test_parts(c);
	return check_done(c, "lines");
}
