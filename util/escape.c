#include "escape.h"

size_t utf8_seqlen(const unsigned char *p, size_t n)
{
	unsigned c = p[0];
	size_t len;
	unsigned min;
	if (c < 0x80)
		return 1;
	if (c >= 0xc2 && c <= 0xdf) {
		len = 2;
		min = 0x80;
	} else if (c >= 0xe0 && c <= 0xef) {
		len = 3;
		min = 0x800;
	} else if (c >= 0xf0 && c <= 0xf4) {
		len = 4;
		min = 0x10000;
	} else {
		return 0;
	}
	if (n < len)
		return 0;
	unsigned cp = c & (0x7f >> len);
	for (size_t i = 1; i < len; i++) {
		if ((p[i] & 0xc0) != 0x80)
			return 0;
		cp = (cp << 6) | (p[i] & 0x3f);
	}
	if (cp < min || cp > 0x10ffff || (cp >= 0xd800 && cp <= 0xdfff))
		return 0;
	return len;
}

size_t utf8_prefix(const char *p, size_t n, size_t max)
{
	if (n <= max)
		return n;
	const unsigned char *u = (const unsigned char *)p;
	/* the sequence that holds byte max starts at most 3 bytes before it */
	for (size_t j = max; j + 3 >= max; j--) {
		if ((u[j] & 0xc0) != 0x80) {
			size_t len = utf8_seqlen(u + j, n - j);
			return j < max && j + len > max ? j : max;
		}
		if (j == 0)
			break;
	}
	return max;
}

static void hexbyte(strbuf *b, unsigned char c)
{
	static const char hex[] = "0123456789abcdef";
	char t[4] = { '\\', 'x', hex[c >> 4], hex[c & 15] };
	sb_add(b, t, 4);
}

static bool is_control(const unsigned char *p, size_t len)
{
	if (len == 1)
		return p[0] < 0x20 || p[0] == 0x7f;
	/* C1 controls U+0080..U+009F act as escapes on some terminals. */
	if (len == 2)
		return p[0] == 0xc2 && p[1] < 0xa0;
	/* bidi overrides and isolates make a terminal show text in another
	 * order than it is ("Trojan Source"): U+202A..E and U+2066..9 */
	return len == 3 && p[0] == 0xe2 &&
	       ((p[1] == 0x80 && p[2] >= 0xaa && p[2] <= 0xae) || (p[1] == 0x81 && p[2] >= 0xa6 && p[2] <= 0xa9));
}

static void escape(strbuf *b, slice s, bool replace, bool keep_tab)
{
	const unsigned char *p = (const unsigned char *)s.p;
	size_t i = 0, run = 0;
	while (i < s.n) {
		size_t len = utf8_seqlen(p + i, s.n - i);
		if (len && !is_control(p + i, len)) {
			i += len;
			continue;
		}
		if (len && p[i] == '\t' && keep_tab) {
			i++;
			continue;
		}
		sb_add(b, s.p + run, i - run);
		if (!len && replace) {
			sb_adds(b, "\xef\xbf\xbd");
			i++;
		} else {
			size_t k = len ? len : 1;
			for (size_t j = 0; j < k; j++)
				hexbyte(b, p[i + j]);
			i += k;
		}
		run = i;
	}
	sb_add(b, s.p + run, s.n - run);
}

void escape_text(strbuf *b, slice s)
{
	escape(b, s, false, true);
}

void escape_utf8(strbuf *b, slice s)
{
	escape(b, s, true, true);
}

const char *escape_name(strbuf *b, const char *s)
{
	sb_clear(b);
	sb_add(b, "", 0); /* b->p is never NULL */
	escape(b, slice_from(s ? s : ""), false, false);
	return b->p;
}
