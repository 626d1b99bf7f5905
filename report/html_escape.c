/* The one escaper of the HTML report: what came from a log reaches the
 * page as text, whatever its bytes. */
#include "html.h"

#include "../util/escape.h"

/* Characters that render as nothing or reorder the text around them,
 * shown as their code point so that a log line reads as it was written:
 * C1 controls, Unicode's default-ignorable code points (bidi marks,
 * embeddings, overrides and isolates, zero-width spaces and joiners, fillers;
 * not the variation selectors that emoji need), line and paragraph
 * separators, interlinear annotations and noncharacters. */
static bool invisible(unsigned cp)
{
	static const unsigned r[][2] = {
		{ 0x80, 0x9f },       { 0xad, 0xad },       { 0x34f, 0x34f },     { 0x61c, 0x61c },
		{ 0x115f, 0x1160 },   { 0x17b4, 0x17b5 },   { 0x180b, 0x180f },   { 0x200b, 0x200f },
		{ 0x2028, 0x202e },   { 0x2060, 0x206f },   { 0x3164, 0x3164 },   { 0xfdd0, 0xfdef },
		{ 0xfeff, 0xfeff },   { 0xffa0, 0xffa0 },   { 0xfff0, 0xfffb },   { 0x1bca0, 0x1bca3 },
		{ 0x1d173, 0x1d17a }, { 0xe0000, 0xe007f },
	};
	for (size_t i = 0; i < sizeof r / sizeof r[0]; i++)
		if (cp >= r[i][0] && cp <= r[i][1])
			return true;
	return (cp & 0xfffe) == 0xfffe; /* U+FFFE and U+FFFF of every plane */
}

static unsigned utf8_decode(const unsigned char *p, size_t len)
{
	if (len == 1)
		return p[0];
	unsigned cp = p[0] & (0x7f >> len);
	for (size_t i = 1; i < len; i++)
		cp = cp << 6 | (p[i] & 0x3f);
	return cp;
}

static void esc_open(strbuf *b, bool text)
{
	if (text)
		sb_adds(b, "<span class=\"esc\">");
}

static void esc_close(strbuf *b, bool text)
{
	if (text)
		sb_adds(b, "</span>");
}

void html_escape(strbuf *b, slice s, bool text)
{
	const unsigned char *p = (const unsigned char *)s.p;
	for (size_t i = 0; i < s.n;) {
		unsigned char c = p[i];
		const char *ent = c == '&' ? "&amp;" : c == '<' ? "&lt;" : c == '>' ? "&gt;" : c == '"' ? "&quot;"
				: c == '\'' ? "&#39;" : NULL;
		if (ent) {
			sb_adds(b, ent);
			i++;
			continue;
		}
		size_t len = utf8_seqlen(p + i, s.n - i);
		if (!len || (len == 1 && ((c < 0x20 && c != '\t') || c == 0x7f))) {
			esc_open(b, text);
			sb_printf(b, "\\x%02x", c);
			esc_close(b, text);
			i++;
			continue;
		}
		unsigned cp = utf8_decode(p + i, len);
		if (invisible(cp)) {
			esc_open(b, text);
			sb_printf(b, "\\u{%x}", cp);
			esc_close(b, text);
		} else {
			sb_add(b, s.p + i, len);
		}
		i += len;
	}
}

void html_escape_cut(strbuf *b, slice s, size_t max, bool text)
{
	const unsigned char *p = (const unsigned char *)s.p;
	size_t at = 0, chars = 0;
	while (at < s.n && chars < max) {
		size_t len = utf8_seqlen(p + at, s.n - at);
		at += len ? len : 1;
		chars++;
	}
	html_escape(b, (slice){ s.p, at }, text);
	if (at < s.n)
		sb_adds(b, "\xe2\x80\xa6");
}

void html_escape_str(strbuf *b, const char *s, bool text)
{
	html_escape(b, slice_from(s ? s : ""), text);
}
