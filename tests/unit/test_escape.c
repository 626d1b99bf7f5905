/* The escapes between log bytes (and names, and arguments) and a terminal:
 * C0, DEL, C1 (as UTF-8 and as raw bytes), bidi overrides and isolates,
 * invalid UTF-8; names also lose their tabs and newlines. */
#include "../../util/escape.h"
#include "check.h"

static const char *text_of(strbuf *b, const char *s, size_t n, bool utf8)
{
	sb_clear(b);
	sb_add(b, "", 0);
	if (utf8)
		escape_utf8(b, (slice){ s, n });
	else
		escape_text(b, (slice){ s, n });
	return b->p;
}

/* Nothing a terminal would act on: C0 but tab (when allowed), DEL, C1 as
 * UTF-8 or raw, the bidi controls; and valid UTF-8 throughout. */
static bool inert(const char *s, bool allow_tab)
{
	const unsigned char *p = (const unsigned char *)s;
	size_t n = strlen(s);
	for (size_t i = 0; i < n;) {
		size_t len = utf8_seqlen(p + i, n - i);
		if (!len) /* a raw byte: 0x80..0x9f is C1 */
			return false;
		if (len == 1 && ((p[i] < 0x20 && !(allow_tab && p[i] == '\t')) || p[i] == 0x7f))
			return false;
		if (len == 2 && p[i] == 0xc2 && p[i + 1] <= 0x9f)
			return false;
		if (len == 3 && p[i] == 0xe2 &&
		    ((p[i + 1] == 0x80 && p[i + 2] >= 0xaa && p[i + 2] <= 0xae) ||
		     (p[i + 1] == 0x81 && p[i + 2] >= 0xa6 && p[i + 2] <= 0xa9)))
			return false;
		i += len;
	}
	return true;
}

int main(void)
{
	checks cc = { 0 }, *c = &cc;
	strbuf b = { 0 };
	static const struct {
		const char *in, *want;
	} cases[] = {
		{ "plain text: ok", "plain text: ok" },
		{ "tab\tkept", "tab\tkept" },
		{ "\x1b]52;c;cHduZWQ=\x07", "\\x1b]52;c;cHduZWQ=\\x07" },
		{ "\x1b[2Jclear", "\\x1b[2Jclear" },
		{ "del\x7f", "del\\x7f" },
		{ "c1 \xc2\x9b" "2J", "c1 \\xc2\\x9b2J" },
		{ "raw c1 \x9b" "2J", "raw c1 \\x9b2J" },
		{ "rlo \xe2\x80\xae" "gpj.exe", "rlo \\xe2\\x80\\xaegpj.exe" },
		{ "lre \xe2\x80\xaa pdf \xe2\x80\xac lri \xe2\x81\xa6 pdi \xe2\x81\xa9",
		  "lre \\xe2\\x80\\xaa pdf \\xe2\\x80\\xac lri \\xe2\\x81\\xa6 pdi \\xe2\\x81\\xa9" },
		{ "dashes \xe2\x80\x94 and \xe2\x80\xa6 stay", "dashes \xe2\x80\x94 and \xe2\x80\xa6 stay" },
		{ "bad \xff\xfe utf8", "bad \\xff\\xfe utf8" },
		{ "nel \xc2\x85 end", "nel \\xc2\\x85 end" },
	};
	for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
		const char *got = text_of(&b, cases[i].in, strlen(cases[i].in), false);
		CHECK(c, strcmp(got, cases[i].want) == 0, "escape_text(%zu): got '%s'", i, got);
		CHECK(c, inert(got, true), "escape_text(%zu) is inert", i);
		got = text_of(&b, cases[i].in, strlen(cases[i].in), true);
		CHECK(c, inert(got, true), "escape_utf8(%zu) is inert: '%s'", i, got);
	}
	/* JSON text: invalid bytes become U+FFFD, controls the \xNN form */
	const char *got = text_of(&b, "a\xff" "b\xe2\x80\xae" "c\x1b", 8, true);
	CHECK(c, strcmp(got, "a\xef\xbf\xbd" "b\\xe2\\x80\\xaec\\x1b") == 0, "escape_utf8: '%s'", got);
	got = text_of(&b, "nul\0byte", 8, false);
	CHECK(c, strcmp(got, "nul\\x00byte") == 0, "a NUL byte: '%s'", got);

	/* names and arguments: one line, whatever they hold */
	strbuf n = { 0 };
	got = escape_name(&n, "two\nlines\tand\x1b[31mred\xe2\x80\xae\x9b");
	CHECK(c, strcmp(got, "two\\x0alines\\x09and\\x1b[31mred\\xe2\\x80\\xae\\x9b") == 0, "escape_name: '%s'", got);
	CHECK(c, inert(got, false), "escape_name is inert");
	strbuf again = { 0 };
	CHECK(c, strcmp(escape_name(&again, got), got) == 0, "escaping twice changes nothing");
	CHECK(c, strcmp(escape_name(&n, "rank0.log"), "rank0.log") == 0, "a plain name is itself");
	CHECK(c, strcmp(escape_name(&n, ""), "") == 0 && strcmp(escape_name(&n, NULL), "") == 0, "empty and NULL");
	sb_free(&n);
	sb_free(&again);

	/* a text cut at a cap never tears a character; invalid bytes are cut
	 * where the cap falls */
	const char *euro = "ab\xe2\x82\xac" "cd"; /* a, b, U+20AC, c, d */
	CHECK(c, utf8_prefix(euro, 7, 9) == 7, "shorter than the cap: whole");
	CHECK(c, utf8_prefix(euro, 7, 2) == 2, "cut before the character");
	CHECK(c, utf8_prefix(euro, 7, 3) == 2 && utf8_prefix(euro, 7, 4) == 2, "cut inside it: before it");
	CHECK(c, utf8_prefix(euro, 7, 5) == 5, "cut after it");
	CHECK(c, utf8_prefix("\xe2\x82\xac", 3, 1) == 0, "a cap inside the first character");
	CHECK(c, utf8_prefix("a\x82\x82\x82\x82z", 6, 3) == 3, "stray continuation bytes: at the cap");
	CHECK(c, utf8_prefix("a\xe2\x82z", 4, 2) == 2, "a torn sequence: at the cap");
	sb_free(&b);
	return check_done(c, "escape");
}
