#include "redact.h"

#include <arpa/inet.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "../parser/record.h"

#define MAX_SPANS 16

/* A pid or tid in NCCL's host:pid:tid prefix. */
typedef struct span {
	size_t at, n;
} span;

static bool is_digit(char c)
{
	return c >= '0' && c <= '9';
}

static bool all_digits(slice w)
{
	for (size_t i = 0; i < w.n; i++)
		if (!is_digit(w.p[i]))
			return false;
	return w.n > 0 && w.n <= 9;
}

static bool is_hex(char c)
{
	return is_digit(c) || (c >= 'a' && c <= 'f') || (c >= 'A' && c <= 'F');
}

/* A character of a word: host names, identifiers, numbers. */
static bool is_word(char c)
{
	return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || is_digit(c) || c == '_' || c == '-';
}

void redact_init(redactor *r, const char *key)
{
	*r = (redactor){ pseudo_new(key) };
}

void redact_free(redactor *r)
{
	pseudo_free(r->ps);
	*r = (redactor){ 0 };
}

/* Learns a host name (its first label: NCCL prints the name up to the first
 * dot); addresses and "localhost" are not names to hide. */
static void learn_host(redactor *r, slice h)
{
	const char *dot = memchr(h.p, '.', h.n);
	if (dot) {
		ipaddr a;
		if (ipaddr_parse(h, &a))
			return;
		h.n = (size_t)(dot - h.p);
	}
	if (h.n < 2 || slice_eq_str(h, "localhost"))
		return;
	for (size_t i = 0; i < h.n; i++)
		if (!is_word(h.p[i]))
			return;
	pseudo_name(r->ps, PSEUDO_HOST, h);
}

/* Parses every record of a line as the analyzer does (per carriage-return
 * segment, glued records too): learns hosts and pids, notes pid spans. */
static size_t learn(redactor *r, slice text, span *sp)
{
	size_t nsp = 0;
	slice s = text;
	while (s.n) {
		const char *cr = memchr(s.p, '\r', s.n);
		slice seg = { s.p, cr ? (size_t)(cr - s.p) : s.n };
		size_t off = 0;
		while (off < seg.n) {
			record rec;
			size_t k = record_parse((slice){ seg.p + off, seg.n - off }, &rec);
			if (rec.ln.host.n)
				learn_host(r, rec.ln.host);
			if (rec.nccl && rec.host.n) {
				learn_host(r, rec.host);
				/* host:pid:tid: the digits right after the host */
				const char *q = rec.host.p + rec.host.n, *end = text.p + text.n;
				for (int field = 0; field < 2 && q < end && *q == ':'; field++) {
					const char *d = ++q;
					while (q < end && is_digit(*q))
						q++;
					if (q == d)
						break;
					pseudo_pid(r->ps, (slice){ d, (size_t)(q - d) });
					if (sp && nsp < MAX_SPANS)
						sp[nsp++] = (span){ (size_t)(d - text.p), (size_t)(q - d) };
				}
			}
			off += k ? k : seg.n - off;
		}
		if (!cr)
			break;
		s.n -= seg.n + 1;
		s.p += seg.n + 1;
	}
	return nsp;
}

void redact_learn(redactor *r, slice text)
{
	learn(r, text, NULL);
}

/* "a.b.c.d" at s[i], octets without leading zeros, not part of a longer
 * dotted number. Returns its length, 0 when there is none. */
static size_t ipv4_at(slice s, size_t i, unsigned char *b)
{
	size_t j = i;
	for (int o = 0; o < 4; o++) {
		if (o) {
			if (j >= s.n || s.p[j] != '.')
				return 0;
			j++;
		}
		size_t d = j;
		unsigned v = 0;
		while (j < s.n && is_digit(s.p[j]) && j - d < 4)
			v = v * 10 + (unsigned)(s.p[j++] - '0');
		if (j == d || j - d > 3 || v > 255 || (s.p[d] == '0' && j - d > 1))
			return 0;
		b[o] = (unsigned char)v;
	}
	if (j < s.n && (is_digit(s.p[j]) || (s.p[j] == '.' && j + 1 < s.n && is_digit(s.p[j + 1]))))
		return 0;
	return j - i;
}

/* An IPv6 address at s[i] (an IPv4-mapped tail included). Returns its
 * length, 0 when there is none. Guards against C++ scopes ("c10::Error")
 * and clock times ("10:22:33"). */
static size_t ipv6_at(slice s, size_t i, ipaddr *a)
{
	size_t j = i, colons = 0;
	bool dbl = false;
	while (j < s.n && j - i < 46 && (is_hex(s.p[j]) || s.p[j] == ':')) {
		if (s.p[j] == ':') {
			colons++;
			dbl = dbl || (j > i && s.p[j - 1] == ':');
		}
		j++;
	}
	if (j < s.n && s.p[j] == '.')
		while (j < s.n && j - i < 46 && (is_digit(s.p[j]) || s.p[j] == '.'))
			j++;
	size_t n = j - i;
	if (colons < 2 || (!dbl && colons != 7) || n > 45)
		return 0;
	if (j < s.n && (is_word(s.p[j]) || s.p[j] == '.'))
		return 0;
	if (n >= 2 && s.p[j - 1] == ':' && s.p[j - 2] == ':')
		return 0; /* "c10::", "fd00::" as a prefix: nothing to hide */
	char tmp[48];
	memcpy(tmp, s.p + i, n);
	tmp[n] = '\0';
	*a = (ipaddr){ .family = 6 };
	return inet_pton(AF_INET6, tmp, a->b) == 1 ? n : 0;
}

/* "pid 123", "pid=123", "pid: 123" after the word at s[w..i): the digits. */
static bool pid_after(slice s, size_t w, size_t i, size_t *d, size_t *e)
{
	if (i - w != 3 || strncasecmp(s.p + w, "pid", 3) != 0)
		return false;
	size_t j = i;
	while (j < s.n && j - i < 3 && (s.p[j] == ' ' || s.p[j] == '=' || s.p[j] == ':'))
		j++;
	size_t k = j;
	while (k < s.n && is_digit(s.p[k]))
		k++;
	if (j == i || k == j || k - j > 9 || (k < s.n && is_word(s.p[k])))
		return false;
	*d = j;
	*e = k;
	return true;
}

static bool user_var(slice s, size_t w, size_t i)
{
	static const char *vars[] = { "USER", "LOGNAME", "SUDO_USER" };
	for (size_t v = 0; v < 3; v++)
		if (i - w == strlen(vars[v]) && memcmp(s.p + w, vars[v], i - w) == 0)
			return i < s.n && s.p[i] == '=';
	return false;
}

static void put_pid(redactor *r, slice digits, bool known_only, strbuf *out)
{
	const char *v = known_only ? pseudo_pid_find(r->ps, digits) : pseudo_pid(r->ps, digits);
	if (v)
		sb_adds(out, v);
	else
		sb_addsl(out, digits);
}

static void put_octet(strbuf *out, unsigned v)
{
	char t[4];
	size_t n = 0;
	if (v >= 100)
		t[n++] = (char)('0' + v / 100);
	if (v >= 10)
		t[n++] = (char)('0' + v / 10 % 10);
	t[n++] = (char)('0' + v % 10);
	sb_add(out, t, n);
}

/* The scanner behind redact_line and redact_name. */
static void scan(redactor *r, slice s, const span *sp, size_t nsp, bool name_mode, strbuf *out)
{
	size_t minlen, maxlen;
	bool hosts = pseudo_hosts(r->ps, &minlen, &maxlen) > 0;
	size_t i = 0, k = 0, lit = 0; /* s[lit..i) is copied as it is, in one go */
#define FLUSH(upto) (sb_add(out, s.p + lit, (upto) - lit))
	while (i < s.n) {
		char c = s.p[i], prev = i ? s.p[i - 1] : ' ';
		while (k < nsp && sp[k].at < i)
			k++;
		if (k < nsp && sp[k].at == i) {
			FLUSH(i);
			put_pid(r, (slice){ s.p + i, sp[k].n }, false, out);
			lit = i += sp[k].n;
			continue;
		}
		if (c == '/' && (slice_starts((slice){ s.p + i, s.n - i }, "/home/") ||
				 slice_starts((slice){ s.p + i, s.n - i }, "/Users/"))) {
			size_t u = i + (s.p[i + 1] == 'h' ? 6 : 7), e = u;
			while (e < s.n && !strchr("/ \t:'\"`\\),;]}>", s.p[e]))
				e++;
			if (e > u) {
				FLUSH(u);
				sb_adds(out, pseudo_name(r->ps, PSEUDO_USER, (slice){ s.p + u, e - u }));
				lit = e;
			}
			i = e;
			continue;
		}
		bool after_word = is_word(prev) || prev == '.';
		if (c == '0' && i + 1 < s.n && (s.p[i + 1] == 'x' || s.p[i + 1] == 'X') && !after_word) {
			size_t e = i + 2;
			while (e < s.n && is_hex(s.p[e]))
				e++;
			if (e - i - 2 >= 8 && e - i - 2 <= 32 && (e == s.n || !is_word(s.p[e]))) {
				FLUSH(i + 2);
				pseudo_hex(r->ps, (slice){ s.p + i + 2, e - i - 2 }, out);
				lit = i = e;
				continue;
			}
		}
		unsigned char v4[4];
		size_t n;
		if (is_digit(c) && !after_word && (n = ipv4_at(s, i, v4))) {
			ipaddr a = { .family = 4 };
			memcpy(a.b, v4, 4);
			pseudo_ip(r->ps, &a);
			FLUSH(i);
			for (int o = 0; o < 4; o++) {
				if (o)
					sb_addc(out, '.');
				put_octet(out, a.b[o]);
			}
			lit = i += n;
			continue;
		}
		ipaddr a6;
		if ((is_hex(c) || c == ':') && !is_word(prev) && (n = ipv6_at(s, i, &a6))) {
			char txt[64];
			pseudo_ip(r->ps, &a6);
			inet_ntop(AF_INET6, a6.b, txt, sizeof txt);
			FLUSH(i);
			sb_adds(out, txt);
			lit = i += n;
			continue;
		}
		if (!is_word(c)) {
			i++;
			continue;
		}
		size_t w = i;
		while (i < s.n && is_word(s.p[i]))
			i++;
		slice word = { s.p + w, i - w };
		const char *ps = NULL;
		size_t d, e;
		if (hosts && word.n >= minlen && word.n <= maxlen && (ps = pseudo_find(r->ps, PSEUDO_HOST, word))) {
			FLUSH(w);
			sb_adds(out, ps);
			lit = i;
		} else if (name_mode && all_digits(word)) {
			FLUSH(w);
			put_pid(r, word, true, out);
			lit = i;
		} else if (pid_after(s, w, i, &d, &e)) {
			FLUSH(d);
			put_pid(r, (slice){ s.p + d, e - d }, false, out);
			lit = i = e;
		} else if (user_var(s, w, i)) {
			size_t u = i + 1;
			e = u;
			while (e < s.n && (is_word(s.p[e]) || s.p[e] == '.'))
				e++;
			FLUSH(u);
			if (e > u)
				sb_adds(out, pseudo_name(r->ps, PSEUDO_USER, (slice){ s.p + u, e - u }));
			lit = i = e;
		}
	}
	FLUSH(s.n);
#undef FLUSH
}

void redact_line(redactor *r, slice text, strbuf *out)
{
	span sp[MAX_SPANS];
	size_t nsp = learn(r, text, sp);
	scan(r, text, sp, nsp, false, out);
}

void redact_name(redactor *r, const char *name, strbuf *out)
{
	scan(r, slice_from(name), NULL, 0, true, out);
}

static void on_line(void *ctx, const line *l)
{
	redact_stream *s = ctx;
	if (s->learn_only) {
		redact_learn(s->r, l->text);
		return;
	}
	sb_clear(&s->out);
	redact_line(s->r, l->text, &s->out);
	sb_addc(&s->out, '\n');
	s->emit(s->ctx, s->out.p, s->out.n);
}

void redact_stream_begin(redact_stream *s, redactor *r, bool learn_only, redact_emit emit, void *ctx)
{
	*s = (redact_stream){ .r = r, .learn_only = learn_only, .emit = emit, .ctx = ctx };
	linesplit_init(&s->ls, REDACT_MAX_LINE);
}

void redact_stream_feed(redact_stream *s, const char *p, size_t n)
{
	linesplit_feed(&s->ls, p, n, on_line, s);
}

void redact_stream_end(redact_stream *s)
{
	linesplit_flush(&s->ls, on_line, s);
	linesplit_free(&s->ls);
	sb_free(&s->out);
}
